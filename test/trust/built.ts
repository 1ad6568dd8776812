/** What the hostile-input suites check of every run, of the built CLI (see runBin in test/helpers/cli.ts) or in-process. */
import { expect } from "vitest";
import { type BinResult, type RunResult, runBin } from "../helpers/cli.js";

/** The built CLI run to its end with its peak memory measured, as these suites report it. */
export function runBuilt(
  args: string[],
  env: Record<string, string | undefined>,
  options: { stdin?: string; timeoutMs?: number } = {},
): Promise<BinResult> {
  return runBin(args, { ...options, env, peakMemory: true });
}

/** What every run of these suites must show: the exit code, no stack trace or "bug", the key nowhere. */
export function expectClean(r: RunResult, code: number, canary: string): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(|node:internal|FATAL|heap out of memory/);
  expect(r.stdout).not.toContain(canary);
  expect(r.stderr).not.toContain(canary);
}
