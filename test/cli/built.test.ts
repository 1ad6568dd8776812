import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin, runCli } from "../helpers/cli.js";

describe("the built CLI, as a user runs it", () => {
  it("--version and --help", async () => {
    const version = await runBin(["--version"], {});
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runBin(["--help"], {});
    expect(help.code).toBe(0);
    for (const group of [
      "tests",
      "invite",
      "links",
      "reports",
      "attempts",
      "callbacks",
      "gdpr",
      "users",
      "employees",
      "auth",
      "config",
      "api",
      "sandbox",
    ]) {
      expect(help.stdout).toContain(group);
    }
  });

  it("--sandbox runs a command against an embedded sandbox with no account", async () => {
    const r = await runBin(["--sandbox", "tests", "list", "--json"], {
      env: {
        PATH: process.env.PATH,
        ASSESS_CONFIG_DIR: join(import.meta.dirname, "..", "..", "node_modules", ".tmp-cfg"),
      },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ testId: 1001 })]));
    expect(r.stderr).toContain("embedded sandbox");
  });
});

describe("usage errors", () => {
  it("an unknown command suggests the nearest one, exit 2", async () => {
    const r = await runCli(["tset"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Did you mean tests?");
  });

  it("an unknown option is exit 2", async () => {
    const r = await runCli(["tests", "list", "--bogus"]);
    expect(r.code).toBe(2);
  });

  it("every command has an example in its help", async () => {
    const { buildProgram } = await import("../../src/cli.js");
    const { Context } = await import("../../src/context.js");
    const { PassThrough } = await import("node:stream");
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} };
    const program = await buildProgram(new Context(io, new AbortController().signal), () => undefined, "all");
    const leaves: string[] = [];
    const walk = (cmd: typeof program, path: string[]) => {
      for (const sub of cmd.commands) {
        const here = [...path, sub.name()];
        if (sub.commands.length === 0 || (sub as unknown as { _actionHandler: unknown })._actionHandler) {
          let help = "";
          sub.configureOutput({ writeOut: (s) => (help += s) });
          sub.outputHelp();
          if (!help.includes("Examples:")) leaves.push(here.join(" "));
        }
        walk(sub, here);
      }
    };
    walk(program, []);
    expect(leaves).toEqual([]);
  });
});
