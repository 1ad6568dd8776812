/**
 * Issue 20 ("Rough edges a new user meets in the first hour"), items 2, 3, 4, 7, 10 and part of 13: each test
 * runs `main(argv)` against the sandbox (or, for completion, the generated script in the real shell) as a
 * new user would.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli.js";
import { Context } from "../../src/context.js";
import { runCli, startTestEnv, type TestEnv } from "../helpers/cli.js";

let t: TestEnv;
let dir: string;

beforeAll(async () => {
  t = await startTestEnv();
  dir = mkdtempSync(join(tmpdir(), "assess-first-hour-b-"));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

// Item 2: completion.

const has = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;

/** What the shell offers after `line` (which ends where the cursor is: "assess links create --type "). */
function offered(shell: "bash" | "zsh" | "fish", script: string, line: string): string[] {
  const file = join(dir, `assess.${shell}`);
  writeFileSync(file, script);
  const words = line.split(" ");
  let run: ReturnType<typeof spawnSync>;
  if (shell === "fish") {
    run = spawnSync("fish", ["--no-config", "-c", `source ${file}; complete -C ${JSON.stringify(line)}`], {
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(String(run.stderr));
    return String(run.stdout)
      .split("\n")
      .filter(Boolean)
      .map((entry) => entry.split("\t")[0]!);
  }
  const array = words.map((w) => JSON.stringify(w)).join(" ");
  const program =
    shell === "zsh"
      ? // What bashcompinit's _bash_complete sets up before it calls the function through compgen -F.
        // compdef (compinit's, which bashcompinit's complete calls) is stubbed: only the function is run.
        `compdef() { :; }
source ${JSON.stringify(file)}
words=(${array}); CURRENT=\${#words}; COMP_WORDS=("\${words[@]}"); COMP_CWORD=$((CURRENT - 1))
compgen -F _assess -- ${JSON.stringify(words.at(-1))}`
      : `source ${JSON.stringify(file)}
COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}
_assess
printf '%s\\n' "\${COMPREPLY[@]}"`;
  run = spawnSync(shell, shell === "zsh" ? ["-f", "-c", program] : ["--norc", "--noprofile", "-c", program], {
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(String(run.stderr));
  return String(run.stdout).split("\n").filter(Boolean);
}

/**
 * Where zsh or fish is not installed, the script is still checked: zsh's is the bash function (bashcompinit),
 * run by bash; fish's completions are read from its lines, scoped by command path.
 */
function offeredWithout(shell: "zsh" | "fish", script: string, line: string): string[] {
  if (shell === "zsh") return offered("bash", script.replace(/^autoload .*$/m, ""), line);
  const words = line.trim().split(" ").slice(1);
  const flag = words.at(-1)!;
  const path = words.slice(0, -1).filter((w) => /^[a-z][a-z-]*$/.test(w));
  const values = (lines: string[]) => lines.flatMap((l) => /-x -a '([^']*)'/.exec(l)?.[1]?.split(" ") ?? []);
  const lines = script
    .split("\n")
    .filter((l) => l.includes(` -l ${flag.slice(2)} `) || l.includes(` -s ${flag.slice(1)} `));
  // The deepest known path is where the cursor is, as __assess_path finds it; global options apply anywhere.
  const known = (p: string[]) => script.includes(`'__assess_at ${p.join(" ")}'`);
  let n = path.length;
  while (n > 0 && !known(path.slice(0, n))) n--;
  const own = lines.filter((l) => l.includes(`-n '__assess_at ${path.slice(0, n).join(" ")}'`));
  return values(own.length > 0 ? own : lines.filter((l) => !l.includes(" -n ")));
}

describe("item 2: completion offers each command's own values for each option", () => {
  for (const shell of ["bash", "zsh", "fish"] as const) {
    it(`${shell}: links create --type/--schedule/--status, reports get --type, and nothing of reports' --type for tests get or links get`, async () => {
      const r = await runCli(["completion", shell]);
      expect(r.code, r.stderr).toBe(0);
      const ask = (line: string) =>
        (shell === "bash" || has(shell)
          ? offered(shell, r.stdout, line)
          : offeredWithout(shell, r.stdout, line)
        )
          .filter((word) => !word.startsWith("-"))
          .sort();
      expect(ask("assess links create --type ")).toEqual(["email", "open"]);
      expect(ask("assess links update 3001 --type ")).toEqual(["email", "open"]);
      expect(ask("assess links create --schedule ")).toEqual(["slotwise", "timebound", "validityindays"]);
      expect(ask("assess links create --status ")).toEqual(["active", "inactive"]);
      expect(ask("assess links create --proctoring ")).toEqual(["disabled", "image", "video"]);
      expect(ask("assess reports get --type ")).toEqual(["1", "2", "3"]);
      expect(ask("assess sandbox complete --status ")).toEqual(["Complete", "Terminated", "TestLeft"]);
      expect(ask("assess tests get --type ")).toEqual([]);
      expect(ask("assess links get 3001 --type ")).toEqual([]);
      expect(ask("assess links create -o ")).toEqual(["csv", "json", "ndjson", "table", "tsv"]);
    });
  }
});

// Item 3: every flag a message names exists on the command it names.

/** The commands of the tree, each with its options and arguments, and the flags its `--help` lists. */
async function commandsOf(): Promise<
  Array<{ path: string[]; options: Array<{ flag: string; takesValue: boolean }>; args: number }>
> {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} };
  const program = await buildProgram(new Context(io, new AbortController().signal), () => undefined, "all");
  const found: Array<{
    path: string[];
    options: Array<{ flag: string; takesValue: boolean }>;
    args: number;
  }> = [];
  const visit = (command: Command, path: string[]) => {
    if (command.commands.length === 0 && path.length > 0) {
      found.push({
        path,
        options: command.options.map((o) => ({
          flag: o.long ?? o.short ?? "",
          takesValue: o.required || o.optional,
        })),
        args: command.registeredArguments.length,
      });
    }
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return found;
}

/** The `--flags` a text names: as words, not inside other words or paths. */
const flagsIn = (text: string) => [...text.matchAll(/(?<![\w/-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]);

/**
 * Each flag stderr names, with the command it belongs to: inside a quoted `assess <command> …`, that command;
 * elsewhere the command that ran.
 */
function namedFlags(
  stderr: string,
  ran: string[],
  paths: Set<string>,
): Array<{ flag: string; path: string }> {
  const named: Array<{ flag: string; path: string }> = [];
  let rest = stderr;
  for (const m of stderr.matchAll(/`assess ([^`]*)`/g)) {
    const words = m[1]!.split(" ");
    let path = "";
    for (const word of words) {
      const next = path ? `${path} ${word}` : word;
      if (paths.has(next)) path = next;
      else break;
    }
    for (const flag of flagsIn(m[1]!)) named.push({ flag, path });
    rest = rest.replace(m[0], "");
  }
  for (const flag of flagsIn(rest)) named.push({ flag, path: ran.join(" ") });
  return named;
}

describe("item 3: hints name only flags that exist on the command they name", () => {
  it("every error path found (each command bare, with bad arguments, with each option bad) names real flags", async () => {
    const commands = await commandsOf();
    const paths = new Set<string>(
      commands.flatMap((c) => c.path.map((_, i) => c.path.slice(0, i + 1).join(" "))),
    );
    const helps = new Map<string, string>();
    const help = async (path: string) => {
      if (!helps.has(path))
        helps.set(path, (await runCli([...path.split(" ").filter(Boolean), "--help"])).stdout);
      return helps.get(path)!;
    };
    const root = await help("");
    // Commands that serve until Ctrl-C: only their option checks run.
    const serving = new Set(["sandbox", "callbacks listen", "attempts watch"]);
    // Their options whose bad values ("abc", "", "-1") are refused before anything starts serving.
    const checkedFirst = ["--port", "--latency", "--interval", "--since", "--test", "--forward"];
    const argvs: string[][] = [
      ["callbacks", "resend", "101367", "abc"],
      ["callbacks", "resend", "101367", "abc", "--restart"],
      ["sandbox", "--port", "abc"],
      ["callbacks", "listen", "--port", "abc"],
      ["links", "get", "99", "--test", "1001"],
      ["links", "create", "--test", "1001", "--schedule", "validityindays", "--start", "+1d"],
      ["links", "create", "--test", "1001", "--schedule", "timebound", "--validity-days", "3"],
      ["links", "create", "--test", "1001", "--type", "email", "--api-link"],
      ["links", "update", "3001", "--test", "1001"],
      [
        "invite",
        "bulk",
        join(import.meta.dirname, "..", "..", "fixtures", "bad", "bad-emails.csv"),
        "--test",
        "1001",
      ],
      ["employees", "report", "501", "--test", "1001"],
      ["employees", "assign-learning", "501"],
      ["tests", "settings", "set", "1001"],
      ["reports", "export", "--from", "1970-01-01", "--to", "2200-01-01"],
      ["attempts", "list", "--from", "1970-01-01", "--to", "2200-01-01"],
      ["gdpr", "mask", "--email", "ada@example.com"],
      ["users", "activate", "--email", "nobody@example.com"],
    ];
    for (const command of commands) {
      const here = command.path.join(" ");
      const args = (value: string) => Array.from({ length: command.args }, () => value);
      if (!serving.has(here)) {
        argvs.push(command.path, [...command.path, ...args("abc")], [...command.path, ...args("999999")]);
      }
      for (const option of command.options) {
        if (serving.has(here) && !option.takesValue) continue;
        if (serving.has(here) && !checkedFirst.includes(option.flag)) continue;
        // A good value is a file written where the test runs (`--out abc`): not an error path.
        if (here === "tests settings pull" && option.flag === "--out") continue;
        const values = option.takesValue ? [["abc"], [""], ["-1"]] : [[]];
        for (const value of values) argvs.push([...command.path, ...args("1001"), option.flag, ...value]);
      }
    }
    const wrong: string[] = [];
    let named = 0;
    for (const argv of argvs) {
      const r = await t.run(["--no-input", ...argv], { env: { ASSESS_CONFIG_DIR: join(dir, "hints") } });
      if (r.code === 0) continue;
      const ran: string[] = [];
      for (const word of argv) {
        if (paths.has([...ran, word].join(" "))) ran.push(word);
        else break;
      }
      for (const { flag, path } of namedFlags(r.stderr, ran, paths)) {
        named++;
        const text = `${await help(path)}\n${root}`;
        if (!new RegExp(`(^|[\\s,])${flag}([\\s,=]|$)`, "m").test(text))
          wrong.push(
            `assess ${argv.join(" ")}: names ${flag}, not an option of \`assess ${path}\`\n    ${r.stderr.trim().replaceAll("\n", "\n    ")}`,
          );
      }
    }
    expect(named).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  });
});

// Item 4: a second resend says why nothing went, and names --restart.

describe("item 4: callbacks resend twice", () => {
  it("the rerun sends nothing (the ledger), says so and names --restart, which sends again", async () => {
    const invited = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "webhook.tester@example.com",
      "--name",
      "Webhook Tester",
      "--callback-url",
      "http://127.0.0.1:9/hook",
      "--json",
    ]);
    expect(invited.code, invited.stderr).toBe(0);
    const id = String(invited.json<{ testInvitationId: number }>().testInvitationId);
    await t.sandbox.completeAttempt(Number(id), "Complete");
    const env = { ASSESS_CONFIG_DIR: join(dir, "resend-twice") };
    const processed = () => t.sandbox.requests.filter((q) => q.path.endsWith("/v3/callbacks/process")).length;

    const first = await t.run(["callbacks", "resend", id], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("--restart");

    const before = processed();
    const second = await t.run(["callbacks", "resend", id], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(processed()).toBe(before);
    expect(second.stderr).toContain("1 already done");
    expect(second.stderr).toMatch(/1 id was not resent: an earlier run already got its notification queued/);
    expect(second.stderr).toContain("Pass --restart to send it again");

    const third = await t.run(["callbacks", "resend", id, "--restart"], { env });
    expect(third.code, third.stderr).toBe(0);
    expect(processed()).toBe(before + 1);
    expect(third.stderr).toContain("Queued 1 id for re-delivery");
  });
});

// Item 7: what --help documents is checked before anything is sent (exit 2); the service's 400 stays exit 1.

describe("item 7: bad input that --help documents exits 2 before sending", () => {
  it("users' e-mails and employee statuses are checked locally, like invite send's e-mail", async () => {
    const refused = [
      ["users", "create", "--email", "bad", "--name", "X"],
      ["users", "update", "--email", "bad", "--business-unit", "11"],
      ["users", "activate", "--email", "bad"],
      ["users", "deactivate", "--email", "bad@"],
      ["employees", "status", "501", "retired"],
      ["invite", "send", "--test", "1001", "--email", "bogus", "--name", "X"],
    ];
    for (const argv of refused) {
      const before = t.sandbox.requests.length;
      const r = await t.run(argv);
      expect(r.code, `${argv.join(" ")}\n${r.stderr}`).toBe(2);
      expect(t.sandbox.requests.length, argv.join(" ")).toBe(before);
    }
    expect((await t.run(["employees", "status", "501", "on-leave"])).code).toBe(0);
    expect(
      (await t.run(["users", "create", "--email", "user@example.com", "--name", "Test User"])).code,
    ).toBe(0);
    // The service's own refusal of well-formed input is still the service's: exit 1 (CLI.md: 2 = nothing sent).
    const taken = await t.run(["users", "create", "--email", "user@example.com", "--name", "Test User"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("already exists");
  });
});

// Item 10: an end in the past is refused before anything is sent.

describe("item 10: an end date in the past", () => {
  it("is refused (exit 2, nothing sent) by invite send, bulk and reattempt, and links create and update", async () => {
    const csv = join(dir, "one.csv");
    writeFileSync(csv, "email,name\npast.end@example.com,Past End\n");
    const refused = [
      [
        "invite",
        "send",
        "--test",
        "1001",
        "--email",
        "past.end@example.com",
        "--name",
        "P",
        "--end",
        "2020-01-01",
      ],
      ["invite", "bulk", csv, "--test", "1001", "--end", "2020-01-01"],
      ["invite", "reattempt", "100165", "--end", "3d"],
      [
        "links",
        "create",
        "--test",
        "1001",
        "--name",
        "Past",
        "--type",
        "email",
        "--schedule",
        "timebound",
        "--start",
        "2019-12-01",
        "--end",
        "2020-01-01",
        "--timezone",
        "1720",
      ],
      [
        "links",
        "update",
        "3001",
        "--test",
        "1001",
        "--schedule",
        "timebound",
        "--start",
        "30d",
        "--end",
        "1d",
      ],
    ];
    for (const argv of refused) {
      const before = t.sandbox.requests.filter((q) => q.method !== "GET").length;
      const r = await t.run(argv, { env: { ASSESS_CONFIG_DIR: join(dir, "past-end") } });
      expect(r.code, `${argv.join(" ")}\n${r.stderr}`).toBe(2);
      expect(r.stderr, argv.join(" ")).toMatch(/--end \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\) is in the past/);
      expect(t.sandbox.requests.filter((q) => q.method !== "GET").length, argv.join(" ")).toBe(before);
    }
    const future = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "future.end@example.com",
      "--name",
      "F",
      "--end",
      "+7d",
    ]);
    expect(future.code, future.stderr).toBe(0);
  });
});

// Item 13 (part): output consistency.

describe("item 13: output consistency", () => {
  const table = (argv: string[]) => t.run([...argv, "-o", "table"]);

  it("reports get and auth status: upper-case headers in tables, the record unchanged in --json", async () => {
    const id = String(
      t.sandbox.state.invitations.find((i) => i.accountId === "acme" && i.status === "Complete")!
        .testInvitationId,
    );
    const report = await table(["reports", "get", id]);
    expect(report.code, report.stderr).toBe(0);
    for (const header of ["INVITATION", "CANDIDATE", "STATUS", "SCORE %", "PERFORMANCE", "SECTION"])
      expect(report.stdout).toContain(header);
    for (const raw of ["candidateName", "PerformanceCategory", "Status ", "scorePercentage", "sections"])
      expect(report.stdout).not.toContain(raw);
    const json = (await t.run(["reports", "get", id, "--json"])).json<Record<string, unknown>>();
    const served = await fetch(`${t.sandbox.url}/v3/reports/${id}`, {
      headers: { "x-api-key": t.env.ASSESS_API_KEY! },
    });
    expect(json).toEqual(await served.json());
    expect(Object.keys(json)).toEqual(expect.arrayContaining(["Status", "PerformanceCategory", "sections"]));

    const auth = await table(["auth", "status"]);
    expect(auth.code, auth.stderr).toBe(0);
    for (const header of ["PROFILE", "KEY", "BASE URL", "SKILLS BASE URL", "VALID"])
      expect(auth.stdout).toContain(header);
    expect(auth.stdout).not.toMatch(/keySource|baseUrl|skillsBaseUrl/);
    expect(Object.keys((await t.run(["auth", "status", "--json"])).json<object>())).toEqual([
      "profile",
      "key",
      "keySource",
      "baseUrl",
      "skillsBaseUrl",
      "valid",
    ]);
  });

  it("invite send shows a new invitation as Pending in a table, and (issue 24) in --json and TSV too", async () => {
    const send = (email: string, format: string[]) =>
      t.run(["invite", "send", "--test", "1001", "--email", email, "--name", "Pat Pending", ...format]);
    const shown = await send("pat.table@example.com", ["-o", "table"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/STATUS\s*│\s*Pending/);
    const json = (await send("pat.json@example.com", ["--json"])).json<Record<string, unknown>>();
    expect(json).toHaveProperty("status", "Pending");
    const tsv = (await send("pat.tsv@example.com", ["-o", "tsv"])).stdout.split("\n");
    expect(tsv[0]).toBe("INVITATION\tTEST URL\tSTATUS");
    expect(tsv[1]).toMatch(/\tPending$/);
  });

  it("links deactivate twice says 'already inactive' and sends nothing the second time; the same for activate", async () => {
    const writes = () => t.sandbox.requests.filter((q) => q.method !== "GET").length;
    const first = await t.run(["links", "deactivate", "3001", "--test", "1001"]);
    expect(first.stderr).toContain("Test link 3001 of test 1001 is now inactive");
    const before = writes();
    const again = await t.run(["links", "deactivate", "3001", "--test", "1001"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Test link 3001 of test 1001 is already inactive; nothing was sent.");
    expect(again.stderr).not.toContain("is now");
    expect(writes()).toBe(before);
    expect((await t.run(["links", "activate", "3001", "--test", "1001"])).stderr).toContain("is now active");
    const on = await t.run(["links", "activate", "3001", "--test", "1001"]);
    expect(on.stderr).toContain("is already active; nothing was sent.");
    expect(writes()).toBe(before + 1);
  });

  it("hints fill in what they know: the test of a missing link, the e-mail of a missing user; --limit in plain words", async () => {
    const link = await t.run(["links", "get", "99", "--test", "1001"]);
    expect(link.code).toBe(1);
    expect(link.stderr).toContain("Run `assess links list --test 1001` to see the test's links.");
    expect(link.stderr).not.toContain("<testId>");

    const user = await t.run(["users", "activate", "--email", "nobody.here@example.com"]);
    expect(user.code).toBe(1);
    expect(user.stderr).toContain("Check the e-mail");
    expect(user.stderr).not.toContain("Check the id");

    for (const argv of [
      ["links", "list", "--test", "1001", "--limit", "abc"],
      ["attempts", "list", "--from", "7d", "--to", "now", "--limit", "0"],
      ["tests", "list", "--limit", "1.5"],
    ]) {
      const r = await t.run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain("--limit must be a positive whole number");
      expect(r.stderr).not.toContain("9007199254740991");
    }
  });

  it("assign-learning sends a resource or skill given twice once", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "employees",
      "assign-learning",
      "501",
      "--resource",
      "lr-104,lr-104",
      "--skill",
      "SQL",
      "--skill",
      "sql",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sent = t.sandbox.requests.slice(before).find((q) => q.method === "POST");
    expect(sent?.body).toMatchObject({ learningResourceIds: ["lr-104"], skills: ["SQL"] });
  });
});
