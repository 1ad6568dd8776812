/** What the bulk commands share around `runBulk`: option parsing, the progress bar, printing a stopped run. */
import { setFlagsFromString } from "node:v8";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { createProgress } from "../output/progress.js";
import type { BulkJob } from "./engine.js";
import { ledgerDir } from "./ledger.js";
import { printBulkResult, type Wording } from "./report.js";
import { runBulk } from "./run.js";
import type { BulkResult } from "./summary.js";

export const MAX_CONCURRENCY = 16;

/** `--chunk-size` may lower the service's limit, never raise it. */
export function parseChunkSize(value: unknown, max: number): number {
  if (value === undefined) return max;
  const text = String(value).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1)
    throw new UsageError(`--chunk-size must be a whole number from 1 to ${max}, got "${text}"`);
  if (n > max) {
    throw new UsageError(
      `--chunk-size ${n} is above the service's limit of ${max} per request`,
      `Use --chunk-size ${max} or less.`,
    );
  }
  return n;
}

export function parseConcurrency(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got "${text}"`);
  }
  return n;
}

/**
 * Runs a job with a progress bar (terminals only) and prints the result; returns the exit code. A run that
 * stopped on an error (authentication, network) prints what it did before the error reaches the handler.
 */
export async function runAndReport<T>(
  ctx: Context,
  job: Omit<BulkJob<T>, "ledgerDir" | "signal" | "dryRun" | "onProgress"> &
    Partial<Pick<BulkJob<T>, "ledgerDir">>,
  wording: Wording,
): Promise<number> {
  // undici parses HTTP with llhttp compiled to WebAssembly. After some hundred requests V8 recompiles it with
  // its optimising tier, a one-off ~35 MB spike of resident memory (measured: peak RSS 100 → 67 MiB for 300
  // requests). Answers here are tiny, so the baseline tier is fast enough; this keeps long runs flat. It only
  // affects modules compiled from now on, and only wasm.
  setFlagsFromString("--liftoff-only");
  const progress = createProgress(ctx.io.stderr, ctx.io.env);
  let result: BulkResult;
  try {
    result = await runBulk<T>({
      ledgerDir: ledgerDir(ctx.io.env),
      signal: ctx.signal,
      dryRun: ctx.dryRun,
      onProgress: (p) => progress.update(p),
      ...job,
    });
  } catch (error) {
    progress.done();
    const partial = (error as { bulk?: BulkResult }).bulk;
    if (partial && partial.chunks.total > 0) printBulkResult(ctx, partial, wording);
    throw error;
  }
  progress.done();
  const { bulkExitCode } = await import("./summary.js");
  printBulkResult(ctx, result, wording);
  return bulkExitCode(result);
}
