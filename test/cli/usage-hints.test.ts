/**
 * Usage errors and hints, through main(argv) against the sandbox: hints name only flags that exist on the
 * command they name, bad input that --help documents exits 2 before sending (the service's own 400 stays
 * exit 1), and an end date in the past is refused before anything is sent.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli.js";
import { Context } from "../../src/context.js";
import { runCli, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-first-hour-b-");

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

describe("hints name only flags that exist on the command they name", () => {
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
      const r = await t.run(["--no-input", ...argv], { env: { ASSESS_CONFIG_DIR: tmp.file("hints") } });
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

describe("bad input that --help documents exits 2 before sending", () => {
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
    // The service's own refusal of well-formed input is still the service's: exit 1 (exit 2 says nothing was sent).
    const taken = await t.run(["users", "create", "--email", "user@example.com", "--name", "Test User"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("already exists");
  });
});

describe("an end date in the past", () => {
  it("is refused (exit 2, nothing sent) by invite send, bulk and reattempt, and links create and update", async () => {
    const csv = tmp.file("one.csv");
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
      const r = await t.run(argv, { env: { ASSESS_CONFIG_DIR: tmp.file("past-end") } });
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

describe("a command line commander refuses", () => {
  it("names the command and how to see its usage: a missing or extra argument, an option without its value, a value not among the choices", async () => {
    const cases: Array<[string[], string]> = [
      [["links", "activate"], "assess links activate"],
      [["tests", "get", "1001", "1002"], "assess tests get"],
      [["tests", "list", "--page"], "assess tests list"],
      [["tests", "settings", "get"], "assess tests settings get"],
      [["invite", "send", "--test", "1001", "--proctoring", "videos"], "assess invite send"],
      [["--profile"], "assess"],
    ];
    for (const [argv, command] of cases) {
      const r = await runCli(argv, { env: t.env });
      expect(r.code, argv.join(" ")).toBe(2);
      // It said only "error: missing required argument 'testLinkId'" (or "too many arguments for 'get'"), no next step.
      expect(r.stderr, argv.join(" ")).toContain(
        `hint: \`${command} --help\` shows its arguments, options and examples.`,
      );
    }
  });
});

describe("an invitation id the service does not know", () => {
  it("points cancel and reattempt to the invitations sent from here, not only to finished attempts", async () => {
    for (const verb of ["cancel", "reattempt"]) {
      const r = await runCli(["invite", verb, "999999"], { env: t.env });
      expect(r.code, r.stderr).toBe(1);
      // It said only "Run `assess attempts list …`", a listing where a pending invitation never appears.
      expect(r.stderr).toContain("`assess invite status --candidates` to see the invitations sent from here");
    }
    const report = await runCli(["reports", "get", "999999"], { env: t.env });
    expect(report.stderr).toContain("`assess attempts list --from 30d --to now` to see recent attempts' ids");
  });
});
