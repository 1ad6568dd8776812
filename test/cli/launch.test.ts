/**
 * The packaged entry answers `--help` and `--version` from a CommonJS build of the program's root alone
 * (src/launch.ts); every other command line runs the full CLI. Both must print the same thing.
 */
import { describe, expect, it } from "vitest";
import { runBin, runCli } from "../helpers/cli.js";

describe("the launcher", () => {
  it.each([["--help"], ["-h"], ["--version"], ["-v"]])(
    "answers %s exactly as the full CLI does",
    async (flag) => {
      const built = await runBin([flag], {
        env: { PATH: process.env.PATH, NO_COLOR: "1" },
      });
      const full = await runCli([flag]);
      expect(built.code).toBe(0);
      expect(built.stderr).toBe("");
      expect(built.stdout).toBe(full.stdout);
      expect(full.code).toBe(0);
    },
  );

  it("hands any other command line to the full CLI, exit codes included", async () => {
    const run = (args: string[]) => runBin(args, { env: { PATH: process.env.PATH } });
    expect((await run(["tests", "--help"])).stdout).toContain("Usage: assess tests");
    const unknown = await run(["--bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
  });
});
