/**
 * The bulk engine: the one loop behind `invite bulk`, `employees upsert` and `callbacks resend`.
 *
 * A command hands it rows and a `send` for one chunk; the engine does the rest the same way for all, in two
 * passes:
 *
 *   the checking pass (check.ts): read and check every row, count them; rows of one dedupe key that differ
 *   are invalid too; any invalid row stops the run before it sends (unless skipInvalid)
 *   → the sending loop (send.ts): invalid rows rejected → dedupe per group → skip what the ledger confirmed
 *   → chunks of ≤ chunkSize rows, never mixing groups → ≤ concurrency requests in flight
 *   → ledger record made durable before each request and after its answer (ledger.ts)
 *   → failed / uncertain / per-item failures → rejects file → a summary (summary.ts: JSON counts + per-row lists).
 *
 * Invariants: nothing is sent before every row is checked; nothing confirmed is sent twice, by this run or a
 * rerun; every row of the input is in exactly one count of the summary. Each file states its share of them.
 * The speed-ups that keep a million rows within time and memory (../speedups/) sit behind the checking pass's
 * `CheckedRows`; the sending loop never sees them.
 *
 * Stable interface (other commands code against it):
 *
 * ```ts
 * const result = await runBulk<number>({
 *   kind: "callbacks",                                  // names the ledger; "invite" | "upsert" | "callbacks"
 *   read: () => entriesOf(ids),                         // batches of BulkEntry (rows or invalid rows)
 *   target: () => ({ baseUrl, key: keyFingerprint(apiKey) }),   // ledger identity of a group
 *   ledgerDir: ledgerDir(ctx.io.env),
 *   chunkSize: 100, maxChunk: 100, concurrency: 2,
 *   skipInvalid: false, restart: o.restart, retryUncertain: o.retryUncertain, dryRun: ctx.dryRun,
 *   signal: ctx.signal,
 *   send: async (_group, rows) => {                     // throw for a failed request; the engine classifies it
 *     const ids = rows.map((row) => Number(row.label));
 *     const r = await api.processCallbacks(ids);
 *     return { failed: r.invalid.map((id) => ({ index: ids.indexOf(id), error: "not in this account" })) };
 *   },
 * });
 * printBulkResult(ctx, result, { noun: "ids" });        // src/commands/shared/bulk-report.ts
 * return bulkExitCode(result);                          // 0, 3 (partial) or 130 (interrupted)
 * ```
 *
 * `runAndReport(ctx, job, wording)` (src/commands/shared/bulk-run.ts) does the last three steps plus the progress bar,
 * ledgerDir, signal and dryRun from the context; `invite bulk` and `employees upsert` use it.
 *
 * Errors thrown by `send` are classified, so a command never decides "uncertain" itself:
 * `UncertainError` → chunk uncertain (not resent unless retryUncertain); `AuthError`/`ApiError` 401/403 and
 * `NetworkError` (service unreachable after retries) → the run stops, in-flight chunks finish, then `runBulk`
 * throws that error (with `error.bulk` holding the result so far); any other `ApiError` → chunk failed (its rows
 * are reported, written to the rejects file and resent by a rerun); `DryRunStop` → the chunk was printed, not sent.
 * Input problems (no data rows, invalid rows without skipInvalid) throw a `UsageError` (exit 2) before anything
 * is sent. Every row is read by the checking pass before the first request, skipInvalid or not.
 */
import { UsageError } from "../../errors.js";
import { type CheckInput, checkPass } from "./check.js";
import { type SendInput, SendLoop } from "./send.js";
import { type BulkResult, DEFAULT_LIMITS, type SummaryLimits } from "./summary.js";
import type { BulkEntry } from "./types.js";

export interface BulkJob<T> extends CheckInput, SendInput<T> {
  /**
   * Reads the input from its start, in batches (one await per batch, not per row); called once. Throw a
   * UsageError for input that cannot be read at all (bad header, broken quoting): nothing will have been
   * sent when it throws, as every row is read before the first request.
   */
  read(): AsyncIterable<BulkEntry<T>[]>;
  /** The service's limit per request; chunkSize above it is an error. */
  maxChunk: number;
  /**
   * Called once the validate-first pass has accepted the input, before the first request: the place for the
   * reads a run needs (`invite bulk` looks up who already finished), so an input refused costs no request.
   */
  beforeSend?(): Promise<void>;
  limits?: Partial<SummaryLimits>;
}

export async function runBulk<T>(job: BulkJob<T>): Promise<BulkResult> {
  if (!Number.isInteger(job.chunkSize) || job.chunkSize < 1 || job.chunkSize > job.maxChunk) {
    throw new UsageError(
      `--chunk-size must be a whole number from 1 to ${job.maxChunk}, got ${job.chunkSize}`,
    );
  }
  const limits: SummaryLimits = { ...DEFAULT_LIMITS, ...job.limits };
  const checked = await checkPass<T>(job);
  try {
    if (job.beforeSend) await job.beforeSend();
    return await new SendLoop(job, limits, checked).execute();
  } finally {
    checked.close();
  }
}
