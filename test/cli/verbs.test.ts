/**
 * Each verb is one file declaring its flags once (src/commands/shared/verb.ts): the tree is built from those
 * declarations and the same declaration reads the command line. This checks what the declarations must hold
 * together, for every verb found where its file sits, and that a bad value is exit 2 naming the flag.
 */

import { VERBS } from "assess:verbs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { longName } from "../../src/commands/shared/verb.js";
import { declareProgram } from "../../src/program.js";
import { runCli } from "../helpers/cli.js";

describe("every verb's declaration", () => {
  it("has a summary and an example of itself, and no flag named twice or named as a global option", async () => {
    const io = { stdout: new PassThrough(), stderr: new PassThrough() };
    const globals = declareProgram(io)
      .options.flatMap((o) => [o.short, o.long])
      .filter(Boolean);
    expect(VERBS.length).toBeGreaterThan(50);
    const problems: string[] = [];
    for (const entry of VERBS) {
      const { spec } = (await entry.load()).default;
      const name = `assess ${entry.path.join(" ")}`;
      if (!spec.summary) problems.push(`${name}: no summary`);
      if (
        !spec.examples.some(
          (line) => line.includes(name) || line.includes(`assess --sandbox ${entry.path.join(" ")}`),
        )
      )
        problems.push(`${name}: no example runs it`);
      const names = spec.flags.flatMap((f) => [longName(f), ...(f.short ? [f.short] : [])]);
      for (const [i, flag] of names.entries()) {
        if (names.indexOf(flag) !== i) problems.push(`${name}: ${flag} is declared twice`);
        if (globals.includes(flag)) problems.push(`${name}: ${flag} is a global option`);
      }
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
