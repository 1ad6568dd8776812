/**
 * Each verb module exports the zod schema of its options beside the code that reads them,
 * and the loader (src/commands/shared/verbs.ts) parses the command line with it. Flags are declared apart, in
 * each group's index.ts (so `--help` loads no verb module): this checks that the two lists are the same, for
 * every command of the tree, and that a bad value is the same exit 2 naming the flag.
 */
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli.js";
import type { LazyAction, Verb } from "../../src/commands/shared/verbs.js";
import { Context } from "../../src/context.js";
import type { DeclaredCommand } from "../../src/program.js";
import { runCli } from "../helpers/cli.js";

async function verbs(): Promise<Array<{ path: string; command: Command; verb: Partial<Verb> }>> {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} };
  const program = await buildProgram(new Context(io, new AbortController().signal), () => undefined, "all");
  const found: Array<{ path: string; command: Command; verb: Partial<Verb> }> = [];
  // A group may run a verb itself (`assess api`, `assess sandbox`) and hold others too (`sandbox complete`).
  const visit = async (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const here = [...path, sub.name()];
      const action = (sub as DeclaredCommand).declaredAction as LazyAction | undefined;
      // Verbs declared with verb() (src/commands/shared/verb.ts) have one declaration for flag and schema.
      if (action?.load !== undefined) {
        found.push({ path: `assess ${here.join(" ")}`, command: sub, verb: await action!.load() });
      }
      await visit(sub, here);
    }
  };
  await visit(program, []);
  return found;
}

describe("every verb's options schema", () => {
  it("has a key for each declared flag, and declares a flag for each key", async () => {
    const all = await verbs();
    expect(all.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const { path, command, verb } of all) {
      if (typeof verb.run !== "function") {
        problems.push(`${path}: its module exports no run`);
        continue;
      }
      // No schema: a verb that declares no flag.
      const shape =
        verb.options === undefined ? {} : (verb.options as { shape?: Record<string, unknown> }).shape;
      if (shape === undefined) {
        problems.push(`${path}: its options schema is not a z.object`);
        continue;
      }
      const declared = new Map(command.options.map((o) => [o.attributeName(), o.long ?? o.flags]));
      for (const [key, flag] of declared)
        if (!(key in shape)) problems.push(`${path}: ${flag} is declared but not in its schema (${key})`);
      for (const key of Object.keys(shape))
        if (!declared.has(key)) problems.push(`${path}: its schema has ${key}, which no flag declares`);
    }
    expect(problems).toEqual([]);
  });
});

describe("a value a schema refuses", () => {
  it.each([
    [["tests", "list", "--page-size", "abc"], '--page-size must be a whole number from 1 to 100, got "abc"'],
    [["tests", "get", "x1"], 'testId must be a positive whole number, got "x1"'],
    [["attempts", "list", "--from", "yesterday", "--to", "now"], '--from: "yesterday" is not a date'],
    [
      ["invite", "send", "--test", "1", "--email", "a@b.co", "--name", "A", "--timezone", "UTC"],
      "--timezone must be a positive whole number",
    ],
    [["links", "create", "--test", "1", "--type", "sms"], '--type must be one of email, open, got "sms"'],
    [
      ["reports", "export", "--from", "7d", "--to", "now", "--concurrency", "64"],
      "--concurrency must be a whole number from 1 to 32",
    ],
    [
      ["tests", "settings", "set", "1", "--copy-paste", "maybe"],
      '--copy-paste must be yes or no, got "maybe"',
    ],
    [["employees", "status", "5", "retired"], "<status> must be one of Active, Inactive, OnLeave, Exited"],
    [["users", "create", "--email", "nope", "--name", "N"], '--email: "nope" is not a valid e-mail address'],
  ])("%j: exit 2 naming the flag, nothing sent", async (argv, message) => {
    // Nothing listens on port 9: a request sent would end in exit 1, not 2.
    const r = await runCli(["--no-input", ...argv], {
      env: {
        ASSESS_API_KEY: "k",
        ASSESS_BASE_URL: "http://127.0.0.1:9",
        ASSESS_SKILLS_BASE_URL: "http://127.0.0.1:9",
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
