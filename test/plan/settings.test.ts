/**
 * `tests settings pull` → edit one flag → `tests settings apply` (one request, the whole object, the change) →
 * apply again (nothing sent), in-process (main) on the sandbox (on a terminal: the built CLI in a
 * pseudo-terminal); and `tests settings get` showing yes/no.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS } from "../../src/sandbox/index.js";
import { SETTING_FLAGS } from "../../src/spec/settings-flags.js";
import { Terminal } from "../helpers/terminal.js";
import { usePlanEnv, writes } from "./env.js";

const b = usePlanEnv();

describe("tests settings pull and apply", () => {
  it("pull writes every setting flat with yes/no; apply sends the whole object once, then nothing", async () => {
    const file = join(b.dir, "settings.json");
    const pulled = await b.run(["tests", "settings", "pull", "1001", "--out", file]);
    expect(pulled.code).toBe(0);
    const settings = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(Object.keys(settings)[0]).toBe("testId");
    expect(settings.testId).toBe(1001);
    for (const flag of SETTING_FLAGS) expect(["yes", "no"]).toContain(settings[flag]);
    expect(typeof settings.testName).toBe("string");
    expect(writes(b.sent())).toEqual([]);

    const before = settings.randomQuestions;
    const after = before === "yes" ? "no" : "yes";
    writeFileSync(file, JSON.stringify({ ...settings, randomQuestions: after }, null, 2));

    const plan = await b.run(["tests", "settings", "apply", "1001", file, "--dry-run", "--json"]);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      changes: [{ field: "randomQuestions", old: before, new: after }],
      sent: false,
    });
    expect(writes(b.sent())).toEqual([]);

    // Not a terminal and no --yes: refused, nothing sent.
    const refused = await b.run(["tests", "settings", "apply", "1001", file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect(writes(b.sent())).toEqual([]);

    const applied = await b.run(["tests", "settings", "apply", "1001", file, "--yes"]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("randomQuestions");
    expect(applied.stdout).toContain(`${before}`);
    const posts = writes(b.sent());
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ method: "POST", path: "/v3/tests/1001/settings" });
    const body = posts[0]!.body as Record<string, unknown>;
    // The whole object: every setting of the file (not the test id), the Yes/No flags as the service's 1/0.
    expect(Object.keys(body).sort()).toEqual(
      Object.keys(settings)
        .filter((k) => k !== "testId")
        .sort(),
    );
    expect(body.randomQuestions).toBe(after === "yes" ? 1 : 0);
    for (const flag of SETTING_FLAGS)
      if (flag !== "randomQuestions") expect(body[flag]).toBe(settings[flag] === "yes" ? 1 : 0);

    const again = await b.run(["tests", "settings", "apply", "1001", file, "--yes"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("already as in");
    expect(writes(b.sent())).toEqual([]);
  });

  it("on a terminal, apply shows each change and asks; no sends nothing (exit 0), yes sends once", async () => {
    const file = join(b.dir, "terminal.json");
    const pulled = await b.run(["tests", "settings", "pull", "1003"]);
    const settings = JSON.parse(pulled.stdout) as Record<string, string>;
    const after = settings.copyPaste === "yes" ? "no" : "yes";
    writeFileSync(file, JSON.stringify({ ...settings, copyPaste: after }));
    b.sent();
    const env = {
      ASSESS_BASE_URL: b.sandbox.url,
      ASSESS_SKILLS_BASE_URL: b.sandbox.skillsUrl,
      ASSESS_API_KEY: SANDBOX_KEYS.acme,
      ASSESS_CONFIG_DIR: join(b.dir, "config"),
    };
    const declined = Terminal.start(["tests", "settings", "apply", "1003", file], env);
    try {
      await declined.waitFor(new RegExp(`copyPaste\\s+│\\s+${settings.copyPaste}\\s+│\\s+${after}`));
      await declined.answer("Change 1 setting of test 1003?", "n");
      // No is an answer, not Ctrl-C: exit 0, saying nothing changed.
      expect(await declined.exited).toBe(0);
      expect(declined.screen).toContain("Nothing changed: you answered no");
    } finally {
      await declined.close();
    }
    expect(writes(b.sent())).toEqual([]);
    const accepted = Terminal.start(["tests", "settings", "apply", "1003", file], env);
    try {
      await accepted.answer("Change 1 setting of test 1003?", "y");
      expect(await accepted.exited).toBe(0);
    } finally {
      await accepted.close();
    }
    const posts = writes(b.sent());
    expect(posts).toHaveLength(1);
    expect((posts[0]!.body as Record<string, unknown>).copyPaste).toBe(after === "yes" ? 1 : 0);
  });

  it("apply refuses another test's pulled file (exit 2, nothing sent) unless --force; a file naming no test is applied with a warning", async () => {
    const file = join(b.dir, "of-1001.json");
    expect((await b.run(["tests", "settings", "pull", "1001", "--out", file])).code).toBe(0);
    const of1001 = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const of1002 = JSON.parse((await b.run(["tests", "settings", "pull", "1002"])).stdout) as Record<
      string,
      unknown
    >;
    expect(of1002.testId).toBe(1002);
    expect(of1002.testName).not.toBe(of1001.testName);
    b.sent();

    const refused = await b.run(["tests", "settings", "apply", "1002", file, "--yes"]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`${file} holds the settings of test 1001, not of test 1002`);
    expect(refused.stderr).toContain("--force");
    // Neither read nor written: the file is refused before the service is asked.
    expect(b.sent()).toEqual([]);

    const forced = await b.run(["tests", "settings", "apply", "1002", file, "--yes", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain("--force: giving test 1002 the settings of test 1001");
    const posts = writes(b.sent());
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ path: "/v3/tests/1002/settings" });
    expect((posts[0]!.body as Record<string, unknown>).testName).toBe(of1001.testName);
    expect(posts[0]!.body).not.toHaveProperty("testId");

    // A file pulled before files carried the test id: taken, with a word that it names no test.
    const { testId: _, ...old } = of1002;
    const oldFile = join(b.dir, "old.json");
    writeFileSync(oldFile, JSON.stringify(old));
    const applied = await b.run(["tests", "settings", "apply", "1002", oldFile, "--yes"]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain(`${oldFile} does not say which test it was pulled from`);
    expect(writes(b.sent())).toHaveLength(1);
  });

  it("on a terminal, a change made while the question is open stops apply: exit 1, the new difference shown, nothing sent", async () => {
    const file = join(b.dir, "raced.json");
    const settings = JSON.parse((await b.run(["tests", "settings", "pull", "1004"])).stdout) as Record<
      string,
      string
    >;
    const flip = (v: string | undefined) => (v === "yes" ? "no" : "yes");
    writeFileSync(file, JSON.stringify({ ...settings, copyPaste: flip(settings.copyPaste) }));
    const env = {
      ASSESS_BASE_URL: b.sandbox.url,
      ASSESS_SKILLS_BASE_URL: b.sandbox.skillsUrl,
      ASSESS_API_KEY: SANDBOX_KEYS.acme,
      ASSESS_CONFIG_DIR: join(b.dir, "config"),
    };
    const term = Terminal.start(["tests", "settings", "apply", "1004", file], env);
    try {
      await term.waitFor("Change 1 setting of test 1004?");
      // A colleague changes another setting while the question is open.
      const colleague = await b.run([
        "tests",
        "settings",
        "set",
        "1004",
        "--random-questions",
        flip(settings.randomQuestions),
      ]);
      expect(colleague.code, colleague.stderr).toBe(0);
      b.sent();
      term.type("y\r");
      expect(await term.exited).toBe(1);
      const screen = term.screen.replace(/\s+/g, " ");
      expect(screen).toContain("The settings of test 1004 changed while you were asked (randomQuestions)");
      expect(screen).toContain("nothing was sent");
      // The new difference: the file would now also undo the colleague's change.
      expect(term.screen).toMatch(
        new RegExp(
          `randomQuestions\\s+│\\s+${flip(settings.randomQuestions)}\\s+│\\s+${settings.randomQuestions}`,
        ),
      );
    } finally {
      await term.close();
    }
    expect(writes(b.sent())).toEqual([]);
  });

  it("settings set --file takes the file settings pull writes (flags as yes/no, the test id), as its help shows", async () => {
    const file = join(b.dir, "for-set.json");
    expect((await b.run(["tests", "settings", "pull", "1005", "--out", file])).code).toBe(0);
    const settings = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
    const after = settings.practiceTest === "yes" ? "no" : "yes";
    writeFileSync(file, JSON.stringify({ ...settings, practiceTest: after }));
    b.sent();
    const set = await b.run(["tests", "settings", "set", "1005", "--file", file]);
    expect(set.code, set.stderr).toBe(0);
    const posts = writes(b.sent());
    expect(posts).toHaveLength(1);
    const body = posts[0]!.body as Record<string, unknown>;
    expect(body).not.toHaveProperty("testId");
    expect(body.practiceTest).toBe(after === "yes" ? 1 : 0);
    for (const flag of SETTING_FLAGS)
      if (flag !== "practiceTest") expect(body[flag]).toBe(settings[flag] === "yes" ? 1 : 0);
    // Another test's file is refused there too, unless --force.
    const other = await b.run(["tests", "settings", "set", "1004", "--file", file]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("holds the settings of test 1005, not of test 1004");
    expect(writes(b.sent())).toEqual([]);
  });

  it("unknown keys and bad values are exit 2 naming them, nothing read or sent", async () => {
    const file = join(b.dir, "typo.json");
    writeFileSync(file, JSON.stringify({ randomQuestion: "yes", copyPast: "no", practiceTest: "yes" }));
    const typo = await b.run(["tests", "settings", "apply", "1001", file, "--yes"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("randomQuestion, copyPast");
    writeFileSync(file, JSON.stringify({ copyPaste: "maybe" }));
    const bad = await b.run(["tests", "settings", "apply", "1001", file, "--yes"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('copyPaste: must be yes or no, got "maybe"');
    expect(b.sent()).toEqual([]);
  });

  it("a pulled file broken by an edit is named by line and column (exit 2, nothing sent), as is api --data", async () => {
    const file = join(b.dir, "edited.json");
    // A trailing comma after the last setting, as hand edits leave: the parser stops at the "}" of line 4.
    writeFileSync(file, '{\n  "testId": 1001,\n  "randomQuestions": "yes",\n}\n');
    const apply = await b.run(["tests", "settings", "apply", "1001", file, "--yes"]);
    expect(apply.code).toBe(2);
    // It said "… in JSON at position 49": the person had to count characters.
    expect(apply.stderr).toContain(
      `${file} is not valid JSON: Expected double-quoted property name in JSON at line 4, column 1`,
    );
    const api = await b.run(["api", "POST", "/v3/tests/1001/settings", "--data", `@${file}`]);
    expect(api.code).toBe(2);
    expect(api.stderr).toContain("in JSON at line 4, column 1");
    expect(b.sent()).toEqual([]);
  });

  it("settings get shows the flags as yes/no in a table, as the service sent them in JSON", async () => {
    const table = await b.run(["tests", "settings", "get", "1002"]);
    expect(table.code).toBe(0);
    const [header, values] = table.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    const column = header!.findIndex((h) => /^copy ?paste$/i.test(h));
    expect(column).toBeGreaterThanOrEqual(0);
    expect(values![column]).toMatch(/^(yes|no)$/);
    const json = await b.run(["tests", "settings", "get", "1002", "--json"]);
    expect([0, 1]).toContain(JSON.parse(json.stdout).windowViolationSettings.copyPaste);
  });
});
