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
 *   → failed / uncertain / per-item failures → rejects file → a summary (JSON counts + per-row lists).
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
 * is sent. Every row is read by the validate-first pass before the first request, skipInvalid or not.
 */
import { randomBytes } from "node:crypto";
import {
  ApiError,
  AuthError,
  CliError,
  DryRunStop,
  NetworkError,
  UncertainError,
  UsageError,
} from "../../errors.js";
import { AdaptiveLimit } from "./adaptive-limit.js";
import { type Checked, checkRows, SHOWN_ERRORS, type SplitCheck } from "./check.js";
import { type DedupeIndex, FIRST, indexRows, REPEAT } from "./dedupe.js";
import { DONE, type KeySet, SEEN, UNCERTAIN } from "./keyset.js";
import { type ChunkOutcome, Ledger, type LedgerTarget } from "./ledger.js";
import { closeSpool, type ReadyEntry, type ReadyRow, replay, sourceOf } from "./spool.js";
import {
  addRow,
  type BulkResult,
  DEFAULT_LIMITS,
  emptyResult,
  type SummaryLimits,
  sortLists,
} from "./summary.js";
import type { BulkEntry, ChunkAnswer, InvalidRow, RejectsSink, SentRow } from "./types.js";

export interface BulkProgress {
  /** Rows read so far (valid or not). */
  rows: number;
  /** Rows whose fate is settled: sent and answered, skipped, invalid, duplicate. */
  done: number;
  /** Rows to expect, when a validate-first pass counted them. */
  total?: number;
}

/** What became of a row. */
export type RowFate = "sent" | "failed" | "uncertain" | "invalid" | "duplicate" | "alreadyDone";

export interface BulkJob<T> {
  /** Names the ledger file and the summary's wording. */
  kind: "invite" | "upsert" | "callbacks" | (string & {});
  /** How messages name the input: `candidates.csv` gives `candidates.csv:12: …`. */
  inputName?: string;
  /**
   * How messages point at the row of a line (default `<inputName>:<line>`): a sheet's rows are
   * `candidates.xlsx, sheet "Candidates", row 12`.
   */
  locate?(line: number): string;
  /** The usage error for an input without rows (default: "<inputName> has no data rows: nothing to send"). */
  noRowsMessage?: string;
  /**
   * Reads the input from its start, in batches (one await per batch, not per row); called once. Throw a
   * UsageError for input that cannot be read at all (bad header, broken quoting): nothing will have been
   * sent when it throws, as every row is read before the first request.
   */
  read(): AsyncIterable<BulkEntry<T>[]>;
  /**
   * The validate-first pass over the same rows as `read`, in parts at once: for a large CSV file, two halves,
   * one in a worker thread (`csvRows` in rows/split-check.ts gives both). Without it `read` is checked.
   */
  splitCheck?: SplitCheck;
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
  /**
   * Called once the validate-first pass has accepted the input, before the first request: the place for the
   * reads a run needs (`invite bulk` looks up who already finished), so an input refused costs no request.
   */
  beforeSend?(): Promise<void>;
  /**
   * A pre-send filter: a reason to hold back a valid row met for the first time (not a repeat), whatever the
   * ledger says of it — `invite bulk` holds back candidates who already finished the test. A held row is not
   * sent and not recorded (and not told to `onRow`); the summary counts it in `held` and lists it in `heldRows`.
   */
  hold?(group: string, label: string, line: number): string | undefined;
  /** Sends one chunk (rows in input order). */
  send(group: string, rows: readonly SentRow<T>[], signal: AbortSignal): Promise<ChunkAnswer | undefined>;
  /** Opens the rejects file on first use; without it rejected rows are only reported. */
  rejects?: () => Promise<RejectsSink>;
  onProgress?(progress: BulkProgress): void;
  /**
   * Each row's fate as it is settled: its line, and why for all but "sent" and "alreadyDone". Rows a stopped
   * run did not send get none (they are the summary's `unsent`).
   */
  onRow?(line: number, fate: RowFate, error?: string): void;
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

interface Group<T> {
  id: string;
  ledger?: Ledger;
  /** Ledger state plus this run's SEEN flags (rows without a dedupe key of their own: the ledger key is it). */
  keys: KeySet;
  open?: Chunk<T>;
}

interface Chunk<T> {
  seq: number;
  group: Group<T>;
  rows: ReadyRow<T>[];
  hashes: number[];
}

type Outcome =
  | { kind: "ok"; answer: ChunkAnswer }
  | { kind: "refused"; error: string }
  | { kind: "uncertain"; error: string }
  | { kind: "dry" }
  /** Could not be sent, or the service refused the credentials: the run stops. */
  | { kind: "fatal"; error: unknown; sent: boolean };

/** A stopped run's error carries what the run did before it stopped. */
export interface BulkStopped {
  bulk?: BulkResult;
}

export async function runBulk<T>(job: BulkJob<T>): Promise<BulkResult> {
  if (!Number.isInteger(job.chunkSize) || job.chunkSize < 1 || job.chunkSize > job.maxChunk) {
    throw new UsageError(
      `--chunk-size must be a whole number from 1 to ${job.maxChunk}, got ${job.chunkSize}`,
    );
  }
  const limits: SummaryLimits = { ...DEFAULT_LIMITS, ...job.limits };
  const checked = await checkPass(job);
  try {
    if (job.beforeSend) await job.beforeSend();
    return await new Run(job, limits, checked).execute();
  } finally {
    for (const part of checked.parts) closeSpool(part.spool);
  }
}

/** The validate-first pass's spools, counts, and the index of rows with dedupe keys (when there are). */
interface CheckedRun extends Checked {
  index?: DedupeIndex;
}

/**
 * The validate-first pass: every row must be valid before anything is sent (exit 2 otherwise; with
 * --skip-invalid the sending pass rejects the invalid ones). It spools the rows for the sending pass (a large
 * CSV file is checked in two halves at once: rows/split-check.ts) and counts them, so a run that stops early still
 * knows the file's rows. Rows of one dedupe key that differ are invalid too (dedupe.ts).
 */
async function checkPass<T>(job: BulkJob<T>): Promise<CheckedRun> {
  const checked: CheckedRun = await checkRows(job);
  try {
    if (checked.keyed > 0) {
      checked.index = indexRows(checked.parts, checked.keyed);
      if (checked.index.conflicts > 0) {
        const conflicting = checked.index.locate(checked.parts, SHOWN_ERRORS, conflictReason(job));
        checked.invalid += conflicting.rows;
        checked.shown = conflicting.shown;
      }
    }
  } catch (error) {
    for (const part of checked.parts) closeSpool(part.spool);
    throw error;
  }
  const { rows, invalid, shown } = checked;
  const refused = !job.skipInvalid && invalid > 0;
  if (rows === 0 || refused) for (const part of checked.parts) closeSpool(part.spool);
  if (rows === 0) throw noRows(job);
  if (refused) {
    const listed = shown.map(({ line, error }) => `${where(job, line)}: ${error}`);
    const more = invalid > listed.length ? [`… and ${invalid - listed.length} more`] : [];
    throw new UsageError(
      `${invalid} of ${rows} rows ${invalid === 1 ? "is" : "are"} invalid; nothing was sent:\n  ${[...listed, ...more].join("\n  ")}`,
      "Fix the rows, or pass --skip-invalid to send the valid ones and write the others to a rejects file.",
      [...listed, ...more],
    );
  }
  return checked;
}

function conflictReason(job: BulkJob<unknown>): (otherLine: number) => string {
  return job.conflictReason ?? ((line) => `conflicts with line ${line}: the same item with other values`);
}

function noRows(job: BulkJob<unknown>): UsageError {
  return new UsageError(
    job.noRowsMessage ?? `${job.inputName ?? "The input"} has no data rows: nothing to send`,
    "The first row names the columns; each following row is one item to send.",
  );
}

function where(job: BulkJob<unknown>, line: number): string {
  if (job.locate) return job.locate(line);
  return job.inputName ? `${job.inputName}:${line}` : `line ${line}`;
}

class Run<T> {
  private readonly result = emptyResult();
  private readonly groups = new Map<string, Group<T>>();
  /** Tells this run's chunks from other runs' in the ledger. */
  private readonly runId = randomBytes(4).toString("hex");
  private seq = 0;
  /** Chunks started and not yet released into the result. */
  private readonly finished = new Map<number, { chunk: Chunk<T>; outcome: Outcome }>();
  private released = 0;
  private running = 0;
  /** Requests in flight allowed now: --concurrency, lowered while the service answers 429. */
  private readonly limit: AdaptiveLimit;
  private readonly inflight = new Set<Promise<void>>();
  private wake?: () => void;
  private stopped = false;
  private fatal?: unknown;
  private rejects?: RejectsSink;
  private rejectsOpening?: Promise<RejectsSink | undefined>;
  private settled = 0;
  /** Never aborted by Ctrl-C: requests already out are let finish so their answers reach the ledger. */
  private readonly requestSignal = new AbortController().signal;

  /** The rows of the input, as the validate-first pass counted them. */
  private readonly total: number;
  private readonly conflictReason: (otherLine: number) => string;

  constructor(
    private readonly job: BulkJob<T>,
    private readonly limits: SummaryLimits,
    /** The validate-first pass's spools (the rows to send) and index. */
    private readonly checked: CheckedRun,
  ) {
    if (job.dryRun) this.result.dryRun = true;
    this.limit = new AdaptiveLimit(job.concurrency);
    this.total = checked.rows;
    this.conflictReason = conflictReason(job);
  }

  async execute(): Promise<BulkResult> {
    const onAbort = () => this.stop();
    this.job.signal?.addEventListener("abort", onAbort, { once: true });
    const unwatch = this.job.watchRateLimits?.((sentAt) => this.rateLimited(sentAt));
    try {
      if (this.job.signal?.aborted) this.stop();
      try {
        await this.readAll();
      } catch (error) {
        // The spool could not be read back, or a ledger could not be opened.
        this.stop();
        await this.drain();
        if (this.result.chunks.total === 0 && this.inflight.size === 0 && this.released === 0) throw error;
        this.setFatal(
          new CliError(`${errorText(error)}; the run stopped there, after sending ${this.result.sent} rows`, {
            exitCode: 3,
            suggestion:
              "Fix the input and run the same command again: rows already confirmed are not sent twice.",
            cause: error,
          }),
        );
      }
      if (!this.stopped) {
        for (const group of this.groups.values()) {
          if (group.open) await this.dispatch(group.open);
          group.open = undefined;
        }
      }
      await this.drain();
      if (this.result.rows === 0 && !this.stopped) throw noRows(this.job);
    } finally {
      this.job.signal?.removeEventListener("abort", onAbort);
      unwatch?.();
      this.stopped ||= this.fatal !== undefined;
      await Promise.allSettled(this.inflight);
      for (const group of this.groups.values()) await group.ledger?.close().catch(() => undefined);
      await this.rejectsOpening?.catch(() => undefined);
      await this.rejects?.close();
    }
    // Rows still in open chunks when the run stopped were never sent.
    for (const group of this.groups.values()) this.result.unsent += group.open?.rows.length ?? 0;
    if (this.job.signal?.aborted) this.result.interrupted = true;
    sortLists(this.result);
    this.progress();
    if (this.fatal) {
      if (this.fatal instanceof Error) (this.fatal as Error & BulkStopped).bulk = this.result;
      throw this.fatal;
    }
    return this.result;
  }

  /** Fewer requests at once from now on; the client retries the rate-limited one itself. */
  private rateLimited(sentAt: number): void {
    if (!this.limit.rateLimited(sentAt)) return;
    const n = this.limit.current;
    this.job.onNotice?.(
      `The service is rate-limiting (HTTP 429): ${n} request${n === 1 ? "" : "s"} at once from now on`,
    );
  }

  private stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** The rows to send: the validate-first pass's spools replayed (once the run stopped, only to count them). */
  private async *rows(): AsyncGenerator<ReadyEntry<T>[]> {
    const countOnly = () => this.stopped;
    for (const part of this.checked.parts) yield* replay<T>(part.spool.fd, part.lineOffset, countOnly);
  }

  /**
   * Every row of the input goes through here, also after the run stopped (Ctrl-C, a fatal error): rows are
   * then no longer sent, but still counted as what they are (invalid, repeats, already done, not sent), so
   * the summary's counts are the whole file's and "not sent" is what a rerun would send.
   */
  private async readAll(): Promise<void> {
    const r = this.result;
    for await (const batch of this.rows()) {
      for (const entry of batch) {
        r.rows++;
        if (entry.invalid) {
          await this.invalid(entry.invalid);
          continue;
        }
        const row = entry as ReadyRow<T>;
        const group = this.groups.get(row.group) ?? (await this.openGroup(row.group));
        const { hi, lo } = row;
        let flags: number;
        let duplicate: boolean;
        if (!row.dedupe) {
          flags = group.keys.update(hi, lo, SEEN);
          duplicate = (flags & SEEN) !== 0;
        } else {
          const seen = this.checked.index?.take(row.dhi, row.dlo, hi) ?? FIRST;
          if (seen > 0) {
            const { line, label } = row;
            await this.invalid({ line, label, error: this.conflictReason(seen), source: sourceOf(row) });
            continue;
          }
          flags = group.keys.get(hi, lo);
          duplicate = seen === REPEAT;
        }
        r.valid++;
        if (duplicate) {
          r.duplicates++;
          this.settled++;
          this.settle(row, "duplicate", "duplicateRows", "repeats an earlier row; sent once");
          continue;
        }
        const held = this.job.hold?.(row.group, row.label, row.line);
        if (held !== undefined) {
          this.settled++;
          this.holdBack(row, held);
          continue;
        }
        if (flags & DONE) {
          r.alreadyDone++;
          this.settled++;
          this.job.onRow?.(row.line, "alreadyDone");
          continue;
        }
        if (flags & UNCERTAIN && !this.job.retryUncertain) {
          r.uncertain++;
          this.settled++;
          this.settle(row, "uncertain", "uncertainRows", "sent by an earlier run whose answer never came");
          continue;
        }
        if (this.stopped) {
          // Not reached before the run stopped: a rerun sends it.
          r.unsent++;
          this.settled++;
          continue;
        }
        const chunk = group.open ?? this.newChunk(group);
        chunk.rows.push(row);
        chunk.hashes.push(hi, lo);
        if (chunk.rows.length >= this.job.chunkSize) {
          group.open = undefined;
          await this.dispatch(chunk);
        }
      }
      this.progress();
    }
  }

  /** A row the job's `hold` filter held back: counted and listed, never sent. */
  private holdBack(row: ReadyRow<T>, reason: string): void {
    const r = this.result;
    r.held = (r.held ?? 0) + 1;
    r.heldRows ??= [];
    if (r.heldRows.length < this.limits.list) r.heldRows.push(this.report(row, reason));
  }

  /** An invalid row: reported, and written to the rejects file. */
  private async invalid({ line, error, label, source }: InvalidRow): Promise<void> {
    const r = this.result;
    r.invalid++;
    this.settled++;
    addRow(r, "invalidRows", { line, label: label ?? "", error }, this.limits);
    this.job.onRow?.(line, "invalid", error);
    await this.reject(source, line, error);
  }

  private report(row: ReadyRow<T>, error?: string) {
    return { line: row.line, label: row.label, error, ...(row.group !== "" ? { group: row.group } : {}) };
  }

  /** A row whose fate has a reason: listed in the summary, and told to `onRow`. */
  private settle(
    row: ReadyRow<T>,
    fate: "failed" | "uncertain" | "duplicate",
    list: "failures" | "uncertainRows" | "duplicateRows",
    error: string,
  ): void {
    addRow(this.result, list, this.report(row, error), this.limits);
    this.job.onRow?.(row.line, fate, error);
  }

  private async openGroup(id: string): Promise<Group<T>> {
    // The first group is sized for every row of the input (most inputs have one group); others grow.
    const expected = this.groups.size === 0 ? this.total : undefined;
    // A group first met after the run stopped is only counted: its ledger is read, not written or locked.
    const counting = this.stopped && !this.job.dryRun;
    const ledger = await Ledger.open(this.job.ledgerDir, this.job.kind, this.job.target(id), {
      restart: this.job.restart,
      readOnly: this.job.dryRun || counting,
      expected,
    });
    const group: Group<T> = { id, ledger, keys: ledger.keys };
    this.groups.set(id, group);
    if (!counting) this.result.ledgers.push(ledger.path);
    if (ledger.skippedLines > 0) this.job.onNotice?.(skippedWarning(ledger));
    return group;
  }

  private newChunk(group: Group<T>): Chunk<T> {
    group.open = { seq: -1, group, rows: [], hashes: [] };
    return group.open;
  }

  /** Starts a chunk when a request slot is free and the reorder window has room (backpressure on the reader). */
  private async dispatch(chunk: Chunk<T>): Promise<void> {
    // Numbered when it goes out, so a group's half-filled chunk never holds back the release of others.
    chunk.seq = this.seq++;
    // Its keys go to the ledger now, while the requests before it are out (begin waits for them).
    const ledger = this.job.dryRun ? undefined : chunk.group.ledger;
    void ledger?.prepare(this.chunkId(chunk), Uint32Array.from(chunk.hashes), [
      chunk.rows[0]!.line,
      chunk.rows.at(-1)!.line,
    ]);
    const window = this.job.concurrency * 2;
    while (!this.stopped && (this.running >= this.limit.current || chunk.seq - this.released >= window)) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    if (this.stopped) {
      this.result.unsent += chunk.rows.length;
      // Keep the release order intact: this seq will never finish.
      this.finished.set(chunk.seq, { chunk, outcome: { kind: "dry" } });
      chunk.rows = [];
      this.releaseInOrder();
      return;
    }
    this.running++;
    let requestDone = false;
    // The slot is free once the answer is in: recording it (end) can share the next chunk's flush (begin).
    const freeSlot = () => {
      if (requestDone) return;
      requestDone = true;
      this.running--;
      this.wake?.();
    };
    const task = this.sendChunk(chunk, freeSlot).finally(() => {
      freeSlot();
      this.inflight.delete(task);
      this.wake?.();
    });
    this.inflight.add(task);
  }

  /** Tells this run's chunks from other runs' in the ledger. */
  private chunkId(chunk: Chunk<T>): string {
    return `${this.runId}-${chunk.seq}`;
  }

  private async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  /** Records, sends and records the answer of one chunk; `answered` is called as soon as the request is over. */
  private async sendChunk(chunk: Chunk<T>, answered: () => void): Promise<void> {
    const ledger = this.job.dryRun ? undefined : chunk.group.ledger;
    const id = this.chunkId(chunk);
    let outcome: Outcome;
    try {
      await ledger?.begin(id);
    } catch (error) {
      outcome = { kind: "fatal", error: ledgerError(ledger!.path, error), sent: false };
      this.finish(chunk, outcome);
      return;
    }
    try {
      const answer = await this.job.send(chunk.group.id, chunk.rows, this.requestSignal);
      this.limit.answered();
      outcome = answer?.refused
        ? { kind: "refused", error: answer.refused }
        : { kind: "ok", answer: answer ?? {} };
    } catch (error) {
      outcome = classify(error);
    }
    // A fatal answer stops the run before its slot could take another chunk.
    if (outcome.kind === "fatal") this.setFatal(outcome.error);
    answered();
    try {
      await ledger?.end(id, toLedger(outcome));
    } catch (error) {
      // The answer is known but not recorded: the rerun will see this chunk as uncertain.
      this.finish(chunk, outcome);
      this.setFatal(ledgerError(ledger!.path, error));
      return;
    }
    this.finish(chunk, outcome);
  }

  private finish(chunk: Chunk<T>, outcome: Outcome): void {
    if (outcome.kind === "fatal") this.setFatal(outcome.error);
    this.finished.set(chunk.seq, { chunk, outcome });
    this.releaseInOrder();
  }

  private setFatal(error: unknown): void {
    this.fatal ??= error;
    this.stop();
  }

  /** Results enter the summary and the rejects file in input order, whatever order the answers came in. */
  private releaseInOrder(): void {
    for (let next = this.finished.get(this.released); next; next = this.finished.get(this.released)) {
      this.finished.delete(this.released);
      this.released++;
      if (next.chunk.rows.length > 0) this.apply(next.chunk, next.outcome);
    }
    this.wake?.();
  }

  private apply(chunk: Chunk<T>, outcome: Outcome): void {
    const r = this.result;
    const n = chunk.rows.length;
    this.settled += n;
    if (outcome.kind === "dry") {
      r.chunks.total++;
      r.wouldSend = (r.wouldSend ?? 0) + n;
      return;
    }
    if (outcome.kind === "fatal" && !outcome.sent) {
      r.unsent += n;
      return;
    }
    r.chunks.total++;
    r.sent += n;
    switch (outcome.kind) {
      case "ok": {
        r.chunks.succeeded++;
        const failed = this.job.onRow && new Set<number>();
        for (const failure of outcome.answer.failed ?? []) {
          const row = chunk.rows[failure.index];
          if (!row) {
            r.unmatched.push(failure.error);
            continue;
          }
          r.failed++;
          failed?.add(failure.index);
          this.settle(row, "failed", "failures", failure.error);
          void this.reject(sourceOf(row), row.line, failure.error);
        }
        r.unmatched.push(...(outcome.answer.unmatched ?? []));
        if (failed) {
          for (const [i, row] of chunk.rows.entries()) if (!failed.has(i)) this.job.onRow?.(row.line, "sent");
        }
        break;
      }
      case "refused":
        r.chunks.failed++;
        r.failed += n;
        for (const row of chunk.rows) {
          this.settle(row, "failed", "failures", outcome.error);
          void this.reject(sourceOf(row), row.line, outcome.error);
        }
        break;
      case "fatal": {
        r.chunks.failed++;
        r.failed += n;
        const error = errorText(outcome.error);
        for (const row of chunk.rows) this.settle(row, "failed", "failures", error);
        break;
      }
      case "uncertain":
        r.chunks.uncertain++;
        r.uncertain += n;
        for (const row of chunk.rows) this.settle(row, "uncertain", "uncertainRows", outcome.error);
        break;
    }
    this.progress();
  }

  /**
   * Writes a rejected row; the sink is opened on first use. Sink writes are synchronous after that. A sink that
   * cannot be opened stops the run (its rows are still in the summary); it never rejects: callers do not wait.
   */
  private async reject(source: unknown, line: number, error: string): Promise<void> {
    if (!this.job.rejects || this.job.dryRun) return;
    if (!this.rejects) {
      this.rejectsOpening ??= this.job.rejects().then(
        (sink) => {
          this.rejects = sink;
          this.result.rejects = sink.path;
          return sink;
        },
        (failure: unknown) => {
          this.setFatal(failure);
          return undefined;
        },
      );
      await this.rejectsOpening;
    }
    this.rejects?.write(source, line, error);
  }

  private progress(): void {
    this.job.onProgress?.({ rows: this.result.rows, done: this.settled, total: this.total });
  }
}

function classify(error: unknown): Outcome {
  if (error instanceof DryRunStop) return { kind: "dry" };
  if (error instanceof UncertainError) return { kind: "uncertain", error: reason(error) };
  if (error instanceof AuthError) return { kind: "fatal", error, sent: error.status !== undefined };
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return { kind: "fatal", error, sent: true };
    return { kind: "refused", error: `HTTP ${error.status}: ${error.messages.join("; ")}` };
  }
  if (error instanceof NetworkError) return { kind: "fatal", error, sent: false };
  // A request body our own schema refused never left this machine.
  if (error instanceof Error && error.name === "ZodError") return { kind: "fatal", error, sent: false };
  // Anything else happened somewhere between sending and reading the answer: assume it may have been processed.
  return { kind: "uncertain", error: errorText(error) };
}

function toLedger(outcome: Outcome): ChunkOutcome {
  switch (outcome.kind) {
    case "ok": {
      const failed = (outcome.answer.failed ?? []).map((f) => f.index);
      return failed.length > 0 ? { t: "ok", failed } : { t: "ok" };
    }
    case "refused":
      return { t: "fail", error: outcome.error };
    case "uncertain":
      return { t: "uncertain", error: outcome.error };
    case "dry":
      return { t: "fail", error: "dry run" };
    case "fatal":
      return outcome.sent || !(outcome.error instanceof NetworkError)
        ? { t: "fail", error: errorText(outcome.error) }
        : { t: "fail", error: `not delivered: ${errorText(outcome.error)}` };
  }
}

function reason(error: UncertainError): string {
  return `${error.message.replace(/^\w+ \S+: /, "")} (the answer was lost)`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Lines of a ledger that could not be read were ignored. One is what a run that stopped mid-write leaves (its
 * request never went out, or its answer is lost: that chunk counts as uncertain); more mean that something
 * else changed the file, and rows whose records were lost with them may be sent again.
 */
function skippedWarning(ledger: Ledger): string {
  const n = ledger.skippedLines;
  const at = ledger.skippedAt.join(", ") + (n > ledger.skippedAt.length ? ", …" : "");
  const lines = n === 1 ? `1 line (line ${at})` : `${n} lines (lines ${at})`;
  return (
    `the ledger ${ledger.path} has ${lines} that could not be read, ignored` +
    (n === 1
      ? " (a run that stopped while writing a record leaves one such line)"
      : ": more than a stopped run leaves, so something else changed the file; rows whose records were lost may be sent again (--dry-run shows what a run would send)")
  );
}

function ledgerError(path: string, error: unknown): CliError {
  return new CliError(`Cannot write the ledger ${path}: ${errorText(error)}`, {
    suggestion: "Check the disk space and permissions of ASSESS_CONFIG_DIR; rerun to resume.",
    cause: error,
  });
}
