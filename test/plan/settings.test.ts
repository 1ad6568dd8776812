/**
 * `tests settings pull` → edit one flag → `tests settings apply` (one request, the whole object, the change) →
 * apply again (nothing sent), through the built CLI on the sandbox; and `tests settings get` showing yes/no.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS } from "../../src/sandbox/index.js";
import { SETTING_FLAGS } from "../../src/spec/settings-flags.js";
import { Terminal } from "../helpers/terminal.js";
import { useBuilt, writes } from "./built.js";

const b = useBuilt();

describe("tests settings pull and apply", () => {
  it("pull writes every setting flat with yes/no; apply sends the whole object once, then nothing", async () => {
    const file = join(b.dir, "settings.json");
    const pulled = await b.run(["tests", "settings", "pull", "1001", "--out", file]);
    expect(pulled.code).toBe(0);
    const settings = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
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
    // The whole object: every field of the file, the Yes/No flags as the service's 1/0.
    expect(Object.keys(body).sort()).toEqual(Object.keys(settings).sort());
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
