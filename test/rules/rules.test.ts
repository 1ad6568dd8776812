/**
 * Rules files: `assess rules check` names each problem by file, line and key (exit 2), looks the tests up on the
 * service when a key is at hand; the parser's bounds (aliases, nesting, size); `assess rules test` shows which
 * rules would fire on a past period and sends nothing. In-process (`main`) against the sandbox.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { evaluate } from "../../src/core/rules/evaluate.js";
import { parseRules } from "../../src/core/rules/read.js";
import { appendShortlistRow } from "../../src/core/rules/shortlist.js";
import { expectNoStack, finishedAttempt, startReceiver } from "../attempts/watch-helpers.js";
import { leftAttempt, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv({ perTest: true });
const tmp = useTempDir("assess-rules-", { perTest: true });
let env: Record<string, string>;
beforeEach(() => {
  env = { ...t.env, ASSESS_CONFIG_DIR: tmp.file("config") };
});
const run = (args: string[], extra: Record<string, string | undefined> = {}) =>
  t.run(args, { env: { ...env, ...extra } });

function rulesFile(text: string, name = "rules.yaml"): string {
  const file = tmp.file(name);
  writeFileSync(file, text);
  return file;
}

const writes = () =>
  t.sandbox.requests.filter((r) => r.method === "POST" && !r.path.endsWith("/testattempts"));

describe("assess rules check", () => {
  it("an invalid rules file: each problem named by file, line and key (exit 2), nothing sent", async () => {
    const file = rulesFile(
      [
        "rules:",
        "  - name: advance",
        "    test: 1001",
        "    when:",
        "      score: { atleast: 70 }",
        "    actions:",
        "      - invit: { test: 1002, end: +7d }",
        "      - forward: ftp//nowhere",
        "  - name: advance",
        "    test: [1001, x]",
        "    when: { status: Finished }",
        "    actions:",
        "      - exec: []",
        "",
      ].join("\n"),
    );
    const requests = t.sandbox.requests.length;
    const r = await run(["rules", "check", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} has 7 problems:`);
    for (const line of [
      `${file}:5: rules[0].when.score.atleast: unknown key "atleast" (one of atLeast, below)`,
      `${file}:7: rules[0].actions[0].invit: unknown action "invit" (one of invite, forward, append, exec)`,
      `${file}:8: rules[0].actions[1].forward: "ftp//nowhere" is not a URL`,
      `${file}:9: rules[1].name: "advance" is also the name of the rule on line 2`,
      `${file}:10: rules[1].test[1]: expected a test id (a whole number), got "x"`,
      `${file}:11: rules[1].when.status: unknown status "Finished" (one of Complete, TestLeft, Terminated)`,
      `${file}:13: rules[1].actions[0].exec: the list is empty: give the program first`,
    ]) {
      expect(r.stderr).toContain(line);
    }
    expect(r.stdout).toBe("");
    expect(t.sandbox.requests.length).toBe(requests);
    expectNoStack(r.stderr);

    // A YAML syntax error has its line too; --json carries each problem as a message.
    const broken = rulesFile("rules:\n  - name: x\n    test: [1001\n", "broken.yaml");
    const json = await run(["rules", "check", broken, "--json"]);
    expect(json.code).toBe(2);
    const { error } = JSON.parse(json.stderr.trim().split("\n").at(-1)!) as { error: { messages: string[] } };
    expect(error.messages[0]).toMatch(new RegExp(`^${broken}:\\d+: `));
  });

  it("an unknown key hides no problem beside it; a forward's scheme is named once", async () => {
    const file = rulesFile(
      [
        "rules:",
        "  - name: advance",
        "    test: 1001",
        "    colour: red",
        "    when:",
        "      score: { atleast: 70 }",
        "      colour: red",
        "    actions:",
        "      - forward: ftp://nowhere.example",
        "",
      ].join("\n"),
    );
    const r = await run(["rules", "check", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} has 4 problems:`);
    for (const line of [
      `${file}:4: rules[0].colour: unknown key "colour" (one of name, test, when, actions)`,
      `${file}:6: rules[0].when.score.atleast: unknown key "atleast" (one of atLeast, below)`,
      `${file}:7: rules[0].when.colour: unknown key "colour" (one of score, status, sections)`,
      `${file}:9: rules[0].actions[0].forward: must be an http:// or https:// URL (a URL, slack:<webhook URL> or teams:<workflow URL>)`,
    ]) {
      expect(r.stderr).toContain(line);
    }
    // In the file's order.
    const lines = [...r.stderr.matchAll(/rules\.yaml:(\d+):/g)].map((m) => Number(m[1]));
    expect(lines).toEqual([4, 6, 7, 9]);
  });

  it("an invite's end in the past is a problem: `end: 7d` is a week ago, every invitation expired from the start", async () => {
    const file = rulesFile(
      [
        "rules:",
        "  - name: advance",
        "    test: 1001",
        "    actions:",
        "      - invite: { test: 1002, end: 7d }",
        "      - invite: { test: 1003, end: 2020-01-01 }",
        "      - invite: { test: 1004, end: +7d, start: 1d }",
        "",
      ].join("\n"),
    );
    const r = await run(["rules", "check", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} has 2 problems:`);
    expect(r.stderr).toContain(
      `${file}:5: rules[0].actions[0].invite.end: "7d" is in the past (a span without + counts back from now): the invitation would be expired from the start; write +7d to count forward`,
    );
    expect(r.stderr).toContain(`${file}:6: rules[0].actions[1].invite.end: "2020-01-01" is in the past`);

    // An end before its start, as invite send refuses it.
    const order = rulesFile(
      "rules:\n  - name: a\n    test: 1001\n    actions:\n      - invite: { test: 1002, start: +10d, end: +7d }\n",
      "order.yaml",
    );
    const refused = await run(["rules", "check", order]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${order}:5: rules[0].actions[0].invite.end: +7d is before start +10d: the end must be after the start`,
    );
  });

  it("a test the service does not know is named at its line (exit 2); without a key only the file is checked", async () => {
    const file = rulesFile(
      [
        "rules:",
        "  - name: advance",
        "    test: 1001",
        "    actions:",
        "      - invite: { test: 99999, end: +7d }",
        "",
      ].join("\n"),
    );
    const r = await run(["rules", "check", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:5: rules[0].actions[0].invite.test: test 99999 does not exist on the service`,
    );
    expect(writes()).toEqual([]);

    const offline = await run(["rules", "check", file], { ASSESS_API_KEY: undefined });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toContain("were not looked up: no API key");

    const good = rulesFile(
      "rules:\n  - name: advance\n    test: 1001\n    when: { score: { atLeast: 70 } }\n    actions:\n      - invite: { test: 1002, end: +7d }\n",
      "good.yaml",
    );
    const ok = await run(["rules", "check", good, "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toEqual({
      file: good,
      testsChecked: true,
      rules: [
        {
          name: "advance",
          line: 2,
          tests: "1001",
          when: "score ≥ 70",
          actions: "invite to test 1002 (end +7d)",
        },
      ],
    });
  });

  it("the parser's bounds: aliases, nesting and size are capped, each named at its line; a few aliases are fine", async () => {
    const rule = (name: string, actions: string) =>
      `  - name: ${name}\n    test: any\n    actions: ${actions}\n`;
    const few = parseRules(`rules:\n${rule("a", "&post [{ append: a.csv }]")}${rule("b", "*post")}`, "/tmp");
    expect(few.problems).toEqual([]);
    expect(few.rules.map((r) => r.actions[0]!.kind)).toEqual(["append", "append"]);

    const many = parseRules(
      `rules:\n  - name: many\n    test: any\n    actions:\n      - &post { append: a.csv }\n${"      - *post\n".repeat(70)}`,
      "/tmp",
    );
    expect(many.rules).toEqual([]);
    expect(many.problems).toEqual([
      expect.objectContaining({
        line: 70,
        message: "more than 64 aliases (*name): a rules file needs a few",
      }),
    ]);

    // 100,000 brackets would exhaust the YAML parser's memory: refused before it runs, at the line.
    for (const [text, line] of [
      [`rules:\n  - name: deep\n    test: any\n    when: ${"[".repeat(100_000)}\n`, 4],
      [`rules:\n${Array.from({ length: 40 }, (_, i) => `${"  ".repeat(i + 1)}- a:`).join("\n")}\n`, 33],
    ] as const) {
      const deep = parseRules(text, "/tmp");
      expect(deep.problems).toEqual([
        { line, key: "", message: "nested deeper than a rules file needs: refused unread" },
      ]);
    }
    // Brackets and quotes inside quoted text and comments are not nesting.
    const quoted = parseRules(
      `# [[[[[[[[[[[[[[[[[[[[ {{{{\nrules:\n${rule("q", `[{ exec: "echo '[[[[[[[[[[[[[[[[[[[[['" }]`)}`,
      "/tmp",
    );
    expect(quoted.problems).toEqual([]);

    const big = rulesFile(`rules: []\n${"#".repeat(1024 * 1024)}\n`, "big.yaml");
    const r = await run(["rules", "check", big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/big\.yaml is \d+ bytes: a rules file is at most 1048576 \(1 MiB\)/);
  });
});

describe("rules on a report", () => {
  it("score bounds, statuses in any spelling and a section's share decide; the first unmet part is named", () => {
    const { rules, problems } = parseRules(
      [
        "rules:",
        "  - name: strong",
        "    test: [1001, 1002]",
        "    when: { score: { atLeast: 70, below: 95 }, status: [Complete, TestLeft] }",
        "    actions: [{ append: a.csv }]",
        "  - name: sql",
        "    test: any",
        "    when: { sections: { sql: { atLeast: 50 } } }",
        "    actions: [{ append: a.csv }]",
        "",
      ].join("\n"),
      "/tmp",
    );
    expect(problems).toEqual([]);
    const attempt = { testInvitationId: 1, testId: 1001 };
    const report = (score: number, Status: string, sql?: [number, number]) => ({
      scorePercentage: score,
      Status,
      sections: sql ? [{ sectionName: "SQL ", candidateScore: sql[0], sectionScore: sql[1] }] : [],
    });
    const verdicts = (r: ReturnType<typeof report>, testId = 1001) =>
      evaluate(rules, { ...attempt, testId }, r).map((v) => [v.rule.name, v.fires, v.why]);
    expect(verdicts(report(70, "Completed", [5, 10]))).toEqual([
      ["strong", true, undefined],
      ["sql", true, undefined],
    ]);
    expect(verdicts(report(69.5, "Test Left", [4, 10]))).toEqual([
      ["strong", false, "score 69.5 is below 70"],
      ["sql", false, "section sql 40 is below 50"],
    ]);
    expect(verdicts(report(95, "Complete"))).toEqual([
      ["strong", false, "score 95 is not below 95"],
      ["sql", false, 'the report has no section "sql"'],
    ]);
    expect(verdicts(report(80, "Terminated"))[0]).toEqual([
      "strong",
      false,
      "status Terminated is not Complete or TestLeft",
    ]);
    // Another test: only the rule of any test applies.
    expect(verdicts(report(80, "Complete", [9, 10]), 1003)).toEqual([["sql", true, undefined]]);
  });
});

describe("a rule's shortlist", () => {
  it("a row whose key the file holds is not written again (an append repeated after a crash); cells neutralised", () => {
    const file = tmp.file("shortlist.csv");
    const row = (key: string, name: string) => ({
      rule: "advance",
      testInvitationId: 7,
      testId: 1001,
      testName: "JS",
      name,
      email: "a@example.com",
      status: "Complete",
      score: 72.5,
      appendedAt: "2026-11-28T09:00:00Z",
      key,
    });
    expect(appendShortlistRow(file, row("7:advance#2.append", "@SUM(A1)"))).toBe(true);
    expect(appendShortlistRow(file, row("7:advance#2.append", "@SUM(A1)"))).toBe(false);
    // A key that ends another key is another key.
    expect(appendShortlistRow(file, row("17:advance#2.append", "Ada, Countess"))).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(
      [
        "rule,testInvitationId,testId,testName,name,email,status,score,appendedAt,key",
        "advance,7,1001,JS,'@SUM(A1),a@example.com,Complete,72.5,2026-11-28T09:00:00Z,7:advance#2.append",
        'advance,7,1001,JS,"Ada, Countess",a@example.com,Complete,72.5,2026-11-28T09:00:00Z,17:advance#2.append',
        "",
      ].join("\r\n"),
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("a rule's forward", () => {
  it("carries the webhook-id rules check --help says it does", async () => {
    const receiver = await startReceiver();
    try {
      const id = await finishedAttempt(t, "hooked@example.com", { name: "Hooked Hal" });
      const file = rulesFile(
        [
          "rules:",
          "  - name: post",
          "    test: 1001",
          "    actions:",
          `      - forward: ${receiver.url}`,
          "",
        ].join("\n"),
      );
      const r = await run(["attempts", "watch", "--once", "--rules", file, "--since", "1h"], {
        ASSESS_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString("base64")}`,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(1);
      const help = await run(["rules", "check", "--help"]);
      const said = /webhook-id `([^`]+)`/.exec(help.stdout.replace(/\s+/g, " "))?.[1];
      expect(said).toBeDefined();
      const expected = said!
        .replace("<attempt>", String(id))
        .replace("<rule>", "post")
        .replace("<n>", "1")
        .replace("<kind>", "forward");
      expect(receiver.requests[0]!.headers["webhook-id"]).toBe(expected);
    } finally {
      await receiver.close();
    }
  });
});

describe("a rule's action given up", () => {
  it("is dead-lettered with a hint that names --replay-dead-letters, which delivers it once more", async () => {
    let gone = true;
    const receiver = await startReceiver(() => (gone ? 410 : 204));
    try {
      await finishedAttempt(t, "gone@example.com", { name: "Gone Gil" });
      const file = rulesFile(
        [
          "rules:",
          "  - name: post",
          "    test: 1001",
          "    actions:",
          `      - forward: ${receiver.url}`,
          "",
        ].join("\n"),
      );
      const r = await run(["attempts", "watch", "--once", "--rules", file, "--since", "1h"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("HTTP 410 Gone");
      expect(r.stderr).toContain("then `assess attempts watch --replay-dead-letters --rules <file>`");
      gone = false;
      const replay = await run(["attempts", "watch", "--replay-dead-letters", "--rules", file]);
      expect(replay.code, replay.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});

describe("assess rules test", () => {
  it("shows which rules would fire on a past period's attempts, and why not the others; sends nothing", async () => {
    const receiver = await startReceiver();
    try {
      const done = await finishedAttempt(t, "done@example.com", { name: "Done Dora" });
      const left = await leftAttempt(run, "left@example.com", "Left Lars");
      const file = rulesFile(
        [
          "rules:",
          "  - name: advance",
          "    test: 1001",
          "    when: { status: Complete }",
          "    actions:",
          "      - invite: { test: 1002, end: +7d }",
          `      - forward: ${receiver.url}`,
          "      - append: shortlist.csv",
          "      - exec: [sh, -c, 'echo ran > ran.txt']",
          "",
        ].join("\n"),
      );
      const r = await run(["rules", "test", file, "--from", "1d", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      const rows = r.json<Array<Record<string, unknown>>>();
      const byId = new Map(rows.map((row) => [row.testInvitationId, row]));
      expect(byId.get(done)).toMatchObject({ rule: "advance", fires: true, testId: 1001 });
      expect(String(byId.get(done)!.detail)).toContain(
        `invite to test 1002 (end +7d); forward to ${receiver.url}`,
      );
      expect(byId.get(left)).toMatchObject({ rule: "advance", fires: false });
      expect(r.stderr).toContain("would fire: advance 1. Nothing was sent.");

      // Nothing sent: no invitation, no forward, no row, no command.
      expect(writes().filter((w) => w.path.includes("/v3/tests/1002/"))).toEqual([]);
      expect(receiver.requests).toEqual([]);
      expect(existsSync(tmp.file("shortlist.csv"))).toBe(false);
      expect(existsSync(tmp.file("ran.txt"))).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});
