/**
 * The bulk engine: the one loop behind `invite bulk`, `employees upsert` and `callbacks resend`.
 *
 * A command hands it rows and a `send` for one chunk; the engine does the rest the same way for all:
 *
 *   read and check every row (the validate-first pass, which counts and spools them; rows of one dedupe key
 *   that differ are invalid too) → replay the spool → invalid rows rejected (skipInvalid; else nothing is sent)
 *   → dedupe per group → skip what the ledger confirmed
 *   → chunks of ≤ chunkSize rows, never mixing groups → ≤ concurrency requests in flight
 *   → ledger record made durable before each request and after its answer
 *   → failed / uncertain / per-item failures → rejects file → a summary (counts of CLI.md + per-row lists).
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
 *     const ids = rows.map((row) => Number(row.json));
 *     const r = await api.processCallbacks(ids);
 *     return { failed: r.invalid.map((id) => ({ index: ids.indexOf(id), error: "not in this account" })) };
 *   },
 * });
 * printBulkResult(ctx, result, { noun: "ids" });            // src/bulk/report.ts
 * return bulkExitCode(result);                          // 0, 3 (partial) or 130 (interrupted)
 * ```
 *
 * `runAndReport(ctx, job, wording)` (src/bulk/command.ts) does the last three steps plus the progress bar,
 * ledgerDir, signal and dryRun from the context; `invite bulk` and `employees upsert` use it.
 *
 * Errors thrown by `send` are classified, so a command never decides "uncertain" itself:
 * `UncertainError` → chunk uncertain (not resent unless retryUncertain); `AuthError`/`ApiError` 401/403 and
 * `NetworkError` (service unreachable after retries) → the run stops, in-flight chunks finish, then `runBulk`
 * throws that error (with `error.bulk` holding the result so far); any other `ApiError` → chunk failed (its rows
 * are reported, written to the rejects file and resent by a rerun); `DryRunStop` → the chunk was printed, not sent.
 * Input problems (no data rows, invalid rows without skipInvalid) throw a `UsageError` (exit 2) before anything
 * is sent. Every row is read by the validate-first pass before the first request, skipInvalid or not.
 */
import type { Json } from "../api/json.js";
import type { SplitCheck } from "./check.js";
import type { SummaryLimits } from "./summary.js";

/** One row to send. */
export interface BulkRow<T> {
  /** Physical 1-based line of the row in the input file (start line of a multi-line record); or 1-based position. */
  line: number;
  /** Chunks never mix groups; each group has its own ledger (the test id for invites, "" otherwise). */
  group: string;
  /** Ledger identity: a confirmed key is never sent again (lower-cased e-mail, content hash, id). */
  key: string;
  /**
   * The item's identity, when it is not `key` (upsert: the e-mail, while `key` is the content). Repeats are
   * sent once and reported as duplicates: rows with the same `key` in one group (no dedupeKey), or with the
   * same dedupeKey and the same `key` anywhere in the input. Rows with one dedupeKey and different keys
   * conflict: all of them are invalid (src/bulk/dedupe.ts).
   */
  dedupeKey?: string;
  /** What reports show for the row: the e-mail, the id. */
  label: string;
  /** What goes into the request: the item's JSON text, checked against the API layer's schema (api/json.ts). */
  json: Json<T>;
  /** The row as it was read (CSV fields or the JSON item), for the rejects file. */
  source?: unknown;
}

/** What `send` gets of each row of its chunk. */
export interface SentRow<T> {
  json: Json<T>;
  label: string;
}

/** A row that failed validation. */
export interface InvalidRow {
  line: number;
  error: string;
  label?: string;
  source?: unknown;
}

export type BulkEntry<T> =
  | { row: BulkRow<T>; invalid?: undefined }
  | { invalid: InvalidRow; row?: undefined };

/** What `send` learned from an answered request. */
export interface ChunkAnswer {
  /** The whole chunk was refused (bulk invite answered `false`): no row of it is confirmed. */
  refused?: string;
  /** Items the service refused, by index into the chunk's rows; every other item is confirmed. */
  failed?: Array<{ index: number; error: string }>;
  /** Failures the service reported that match no item of the chunk: shown and counted, not in the rejects file. */
  unmatched?: string[];
}

/** Ledger identity of one group: where the rows go. Never holds the key itself, only its fingerprint. */
export interface LedgerTarget {
  baseUrl: string;
  /** `keyFingerprint(apiKey)` from ledger.ts. */
  key: string;
  testId?: number | string;
}

/** Where rejected rows go; created on the first rejected row, so a clean run leaves no file. */
export interface RejectsSink {
  readonly path: string;
  write(source: unknown, line: number, error: string): void;
  close(): Promise<void>;
}

export interface BulkProgress {
  /** Rows read so far (valid or not). */
  rows: number;
  /** Rows whose fate is settled: sent and answered, skipped, invalid, duplicate. */
  done: number;
  /** Rows to expect, when a validate-first pass counted them. */
  total?: number;
}

export interface BulkJob<T> {
  /** Names the ledger file and the summary's wording. */
  kind: "invite" | "upsert" | "callbacks" | (string & {});
  /** How messages name the input: `candidates.csv` gives `candidates.csv:12: …`. */
  inputName?: string;
  /** The usage error for an input without rows (default: "<inputName> has no data rows: nothing to send"). */
  noRowsMessage?: string;
  /**
   * Reads the input from its start, in batches (one await per batch, not per row); called once. Throw a
   * UsageError for input that cannot be read at all (bad header, broken quoting): nothing will have been
   * sent when it throws, as every row is read before the first request.
   */
  read(): AsyncIterable<BulkEntry<T>[]>;
  /**
   * The same rows as `read`, described as data for a CSV input (`csvRows` in check.ts gives both): the
   * validate-first pass can then check a large file in two halves at once, one in a worker thread.
   */
  splitCheck?: Omit<SplitCheck, "worker">;
  /** The worker script of a split check (dist/check-worker.cjs); without it the check is one pass. */
  checkWorker?: URL;
  /** Ledger identity of a group (called once per group). */
  target(group: string): LedgerTarget;
  /** Folder for ledgers, and the spool of checked rows: `ledgerDir(env)` from ledger.ts (under ASSESS_CONFIG_DIR). */
  ledgerDir: string;
  /** Rows per request, already capped by `maxChunk`. */
  chunkSize: number;
  /** The service's limit per request; chunkSize above it is an error. */
  maxChunk: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Send the valid rows and reject the invalid ones (else any invalid row stops the run before it sends). */
  skipInvalid: boolean;
  restart?: boolean;
  retryUncertain?: boolean;
  /** Print what would be sent (send() is still called: the API client prints and throws DryRunStop); no ledger writes. */
  dryRun?: boolean;
  /**
   * Ctrl-C: send nothing more, let in-flight requests finish and be recorded, return with `interrupted`; the
   * rows not reached are still counted (as the summary's counts are the file's), not sent.
   */
  signal?: AbortSignal;
  /**
   * The reason given for a row whose dedupeKey another row has with other values (`otherLine`: one of those).
   * Default: "conflicts with line N: the same item with other values".
   */
  conflictReason?(otherLine: number): string;
  /** Sends one chunk (rows in input order). */
  send(group: string, rows: readonly SentRow<T>[], signal: AbortSignal): Promise<ChunkAnswer | undefined>;
  /** Opens the rejects file on first use; without it rejected rows are only reported. */
  rejects?: () => Promise<RejectsSink>;
  onProgress?(progress: BulkProgress): void;
  /**
   * Subscribes `onRateLimited` to the client's 429 answers (each with the time its request was sent) and
   * returns the unsubscribe. The run then keeps fewer requests in flight while the service rate-limits it
   * (adaptive-limit.ts); the client retries each 429 itself, within --retries.
   */
  watchRateLimits?(onRateLimited: (sentAt: number) => void): () => void;
  /** What a person should hear of as it happens: the run slowing down because the service rate-limits it. */
  onNotice?(message: string): void;
  /** With --debug: how the run goes about its work (a large file checked in two halves, say). */
  onDebug?(line: string): void;
  limits?: Partial<SummaryLimits>;
}

export { runBulk } from "./run.js";
export type { BulkResult, RowReport } from "./summary.js";
