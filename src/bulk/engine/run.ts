/**
 * The bulk engine: the one loop behind `invite bulk`, `employees upsert` and `callbacks resend`. A command hands
 * it rows (`read`) and a `send` for one chunk; the engine runs the checking pass (check.ts), then the sending
 * loop (send.ts), with the ledger (ledger.ts) and the summary (summary.ts). `runReported` in
 * commands/shared/bulk-run.ts wraps it for the CLI; the jobs are declared in ../jobs/.
 *
 * Invariants: nothing is sent before every row is checked; nothing confirmed is sent twice, by this run or a
 * rerun; every row of the input is in exactly one count of the summary. The storage of checked rows (../storage/:
 * spool, key sets, dedupe) sits behind the checking pass's `CheckedRows`; the sending loop never sees it.
 *
 * Errors thrown by `send` are classified by the loop, never the command: `UncertainError` → chunk uncertain;
 * 401/403 and `NetworkError` → the run stops and `runBulk` throws that error (with `error.bulk`, the result so
 * far); any other `ApiError` → chunk failed; `DryRunStop` → printed, not sent. Input problems throw a
 * `UsageError` (exit 2) before anything is sent.
 */
import { UsageError } from "../../errors.js";
import { type CheckInput, checkPass } from "./check.js";
import { type SendInput, SendLoop } from "./send.js";
import type { BulkResult } from "./summary.js";
import type { EntryBatches } from "./types.js";

export interface BulkJob<T> extends CheckInput, SendInput<T> {
  /** Reads the input from its start, in batches; called once. Throws a UsageError for unreadable input. */
  read(): EntryBatches<T>;
  /** The service's limit per request; chunkSize above it is an error. */
  maxChunk: number;
  /**
   * Awaited before the first request (`invite bulk` looks up who finished): nothing is sent before it has
   * settled, and its error stops the run. Called once the input is accepted, or as soon as `overlapFrom` rows
   * are checked and none of them is invalid, to run while the rest is checked: a check that fails then aborts
   * `stop`, and what it comes to is ignored (an input refused before that row has cost nothing).
   */
  beforeSend?(stop: AbortSignal): Promise<void>;
  overlapFrom?: number;
}

export async function runBulk<T>(job: BulkJob<T>): Promise<BulkResult> {
  if (!Number.isInteger(job.chunkSize) || job.chunkSize < 1 || job.chunkSize > job.maxChunk) {
    throw new UsageError(
      `--chunk-size must be a whole number from 1 to ${job.maxChunk}, got ${job.chunkSize}`,
    );
  }
  const stop = new AbortController();
  // Settled into a value at once: an error it meets while the check goes on is no unhandled rejection.
  const early = (): Promise<{ error: unknown } | undefined> | undefined =>
    job.beforeSend?.(stop.signal).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  let meanwhile: ReturnType<typeof early>;
  const from = job.overlapFrom;
  const onTally =
    from === undefined
      ? undefined
      : (rows: number, invalid: number) => {
          if (meanwhile === undefined && invalid === 0 && rows >= from) meanwhile = early();
        };
  let checked: Awaited<ReturnType<typeof checkPass<T>>>;
  try {
    checked = await checkPass<T>({ ...job, onTally });
  } catch (error) {
    stop.abort();
    throw error;
  }
  try {
    const failed = await (meanwhile ?? early());
    if (failed) throw failed.error;
    return await new SendLoop(job, checked).execute();
  } finally {
    checked.close();
  }
}
