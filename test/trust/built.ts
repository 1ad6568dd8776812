/**
 * The built CLI (`node bin/assess.js`) in a child process, as a user runs it, with its peak memory: a
 * preloaded hook writes `process.resourceUsage().maxRSS` when the process exits. For the suites of issue 26.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "../bulk/helpers.js";

export const BIN = join(ROOT, "bin", "assess.js");

export interface BuiltRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Peak resident set size of the process, MiB (undefined when it died before its exit handlers ran). */
  peakMiB?: number;
  ms: number;
}

const hookDir = mkdtempSync(join(tmpdir(), "assess-rss-hook-"));
const HOOK = join(hookDir, "rss.cjs");
writeFileSync(
  HOOK,
  'process.on("exit", () => require("node:fs").writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)));\n',
);
process.on("exit", () => rmSync(hookDir, { recursive: true, force: true }));

export function runBuilt(
  args: string[],
  env: Record<string, string | undefined>,
  options: { stdin?: string; timeoutMs?: number } = {},
): Promise<BuiltRun> {
  const rssOut = join(hookDir, `rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-r", HOOK, BIN, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: "1", ...env, RSS_OUT: rssOut },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.stdin.end(options.stdin ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      let peakMiB: number | undefined;
      try {
        peakMiB = Number(readFileSync(rssOut, "utf8")) / 1024;
        rmSync(rssOut);
      } catch {
        // killed, or crashed before exit handlers
      }
      resolve({
        code: code ?? (signal ? 128 : -1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        peakMiB,
        ms: Date.now() - started,
      });
    });
  });
}

/** What every run of these suites must show: the exit code, no stack trace or "bug", the key nowhere. */
export function expectClean(r: BuiltRun, code: number, canary: string): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(|node:internal|FATAL|heap out of memory/);
  expect(r.stdout).not.toContain(canary);
  expect(r.stderr).not.toContain(canary);
}
