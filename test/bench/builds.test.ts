/**
 * The benchmarks (bench/) bundle parts of src/ themselves: they must keep building as src/ changes (they failed
 * to resolve `assess:verbs` for two sessions before anyone ran them). Only the builds: the runs are benchmarks.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a script of the repository, JavaScript without declarations
import { bundleSandbox, importBundled } from "../../bench/common.mjs";
import { useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-bench-builds-");

describe("the benchmarks' builds", () => {
  it("bundle the sandbox and the parts of src/ the scripts drive in-process", async () => {
    await bundleSandbox(tmp.dir);
    expect(existsSync(join(tmp.dir, "sandbox.mjs"))).toBe(true);
    const { verbFiles } = await importBundled(
      tmp.dir,
      "verbs",
      'export { VERBS as verbFiles } from "assess:verbs";',
    );
    expect(verbFiles.length).toBeGreaterThan(50);
  });
});
