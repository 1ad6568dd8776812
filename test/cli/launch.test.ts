/**
 * The packaged entry answers `--help` and `--version` from a CommonJS build of the program's root alone
 * (src/launch.ts); every other command line runs the full CLI. Both must print the same thing.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const bin = join(import.meta.dirname, "..", "..", "bin", "assess.js");

describe("the launcher", () => {
  it.each([["--help"], ["-h"], ["--version"], ["-v"]])(
    "answers %s exactly as the full CLI does",
    async (flag) => {
      const built = spawnSync(process.execPath, [bin, flag], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, NO_COLOR: "1" },
      });
      const full = await runCli([flag]);
      expect(built.status).toBe(0);
      expect(built.stderr).toBe("");
      expect(built.stdout).toBe(full.stdout);
      expect(full.code).toBe(0);
    },
  );

  it("hands any other command line to the full CLI, exit codes included", () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(run(["tests", "--help"]).stdout).toContain("Usage: assess tests");
    const unknown = run(["--bogus"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
  });
});
