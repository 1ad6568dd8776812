/**
 * The sending loop: the checked rows (check.ts `CheckedRows`) in input order → invalid rows rejected →
 * repeats and rows the ledger confirmed skipped → chunks of ≤ chunkSize rows of one group → ≤ concurrency
 * requests in flight (fewer while the service answers 429: adaptive-limit.ts) → each answer into the ledger,
 * the summary and the rejects file, in input order.
 *
 * Invariants (what makes a rerun send nothing twice):
 * - A chunk's keys are durable in the ledger (ledger.ts `begin`) before its request goes out, and its
 *   outcome after its answer comes back; a request whose answer is lost is "uncertain", never "failed", and
 *   is not sent again unless retryUncertain.
 * - A key is in at most one chunk of a run (SEEN, or the checking pass's dedupe verdict), and a key the
 *   ledger holds as DONE is never sent.
 * - Every row of the input ends in exactly one count of the summary, also when the run stops (Ctrl-C, a
 *   fatal error): rows not reached are read on, counted and not sent ("unsent": what a rerun sends).
 * - Results enter the summary and the rejects file in input order, whatever order the answers come in.
 * - Requests already out when the run stops are let finish, so their answers reach the ledger.
 * - The loop decides each row's fate from `send`'s answer or error alone (`classify`), never the command.
 */
import { randomBytes } from "node:crypto";
import { ApiError, AuthError, CliError, DryRunStop, NetworkError, UncertainError } from "../../errors.js";
import { AdaptiveLimit } from "./adaptive-limit.js";
import { type CheckedRows, type CheckInput, conflictReason, noRows } from "./check.js";
import { type ChunkOutcome, Ledger, type LedgerTarget, ledgerError, skippedWarning } from "./ledger.js";
import {
  addRow,
  type BulkResult,
  type BulkStopped,
  emptyResult,
  type SummaryLimits,
  sortLists,
} from "./summary.js";
import {
  type BulkProgress,
  type ChunkAnswer,
  DONE,
  type InvalidRow,
  type KeyFlags,
  REPEAT,
  type ReadyRow,
  type RejectsSink,
  type RowFate,
  SEEN,
  type SentRow,
  UNCERTAIN,
} from "./types.js";

/** What the sending loop needs of a job (run.ts `BulkJob`). */
export interface SendInput<T> extends Pick<CheckInput, "inputName" | "noRowsMessage" | "conflictReason"> {
  /** Names the ledger file and the summary's wording. */
  kind: "invite" | "upsert" | "callbacks" | (string & {});
  /** Ledger identity of a group (called once per group). */
  target(group: string): LedgerTarget;
  /** Folder for ledgers, and the spool of checked rows: `ledgerDir(env)` from ledger.ts (under ASSESS_CONFIG_DIR). */
  ledgerDir: string;
  /** Rows per request, already capped by `maxChunk`. */
  chunkSize: number;
  /** Requests in flight at once. */
  concurrency: number;
  restart?: boolean;
  retryUncertain?: boolean;
  /** Print what would be sent (send() is still called: the API client prints and throws DryRunStop); no ledger writes. */
  dryRun?: boolean;
  /**
   * Ctrl-C: send nothing more, let in-flight requests finish and be recorded, return with `interrupted`; the
   * rows not reached are still counted (as the summary's counts are the file's), not sent.
   */
  signal?: AbortSignal;
  /** Sends one chunk (rows in input order). */
  /**
   * A pre-send filter: a reason to hold back a valid row met for the first time (not a repeat), whatever the
   * ledger says of it — `invite bulk` holds back candidates who already finished the test. A held row is not
   * sent and not recorded (and not told to `onRow`); the summary counts it in `held` and lists it in `heldRows`.
   */
  hold?(group: string, label: string, line: number): string | undefined;
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
}

interface Group<T> {
  id: string;
  ledger?: Ledger;
  /** Ledger state plus this run's SEEN flags (rows without a dedupe key of their own: the ledger key is it). */
  keys: KeyFlags;
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

export class SendLoop<T> {
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
    private readonly job: SendInput<T>,
    private readonly limits: SummaryLimits,
    /** The checking pass's rows: the only way this loop sees the input. */
    private readonly checked: CheckedRows<T>,
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
      // A rerun whose rejected rows are an earlier run's file, byte for byte, names that file (rejects.ts).
      if (this.rejects) this.result.rejects = this.rejects.path;
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

  /**
   * Every row of the input goes through here, also after the run stopped (Ctrl-C, a fatal error): rows are
   * then no longer sent, but still counted as what they are (invalid, repeats, already done, not sent), so
   * the summary's counts are the whole file's and "not sent" is what a rerun would send.
   */
  private async readAll(): Promise<void> {
    const r = this.result;
    for await (const batch of this.checked.replay(() => this.stopped)) {
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
          const seen = this.checked.take(row);
          if (seen > 0) {
            const { line, label } = row;
            const source = this.checked.sourceOf(row);
            await this.invalid({ line, label, error: this.conflictReason(seen), source });
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
          void this.reject(this.checked.sourceOf(row), row.line, failure.error);
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
          void this.reject(this.checked.sourceOf(row), row.line, outcome.error);
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
