/**
 * The sending loop: the checked rows (check.ts `CheckedRows`) in input order → invalid rows rejected →
 * repeats and rows the ledger confirmed skipped → chunks of ≤ chunkSize rows of one group → ≤ concurrency
 * requests in flight (fewer while the service answers 429) → each answer into the ledger, the summary and the
 * rejects file.
 *
 * Invariants (what makes a rerun send nothing twice):
 * - A chunk's keys are durable in the ledger before its request goes out, and its outcome after the answer; a
 *   request whose answer is lost is "uncertain", never "failed", and is not resent unless retryUncertain.
 * - A key is in at most one chunk of a run, and a key the ledger holds as DONE is never sent.
 * - Every row ends in exactly one count of the summary, also when the run stops: rows not reached are read on
 *   and counted "unsent" (what a rerun sends). Results enter the summary and rejects file in input order.
 * - Requests already out when the run stops are let finish, so their answers reach the ledger.
 * - Each row's fate comes from `send`'s answer or error alone (`classify`), never from the command.
 */

import { randomBytes } from "node:crypto";
import { RefusedError } from "../../api/read.js";
import { append } from "../../arrays.js";
import { ApiError, AuthError, CliError, DryRunStop, NetworkError, UncertainError } from "../../errors.js";
import { AdaptiveLimit } from "./adaptive-limit.js";
import { type CheckedRows, type CheckInput, conflictReason } from "./check.js";
import { type ChunkOutcome, Ledger, type LedgerTarget, ledgerError, skippedWarning } from "./ledger.js";
import {
  addRow,
  type BulkResult,
  type BulkStopped,
  emptyResult,
  LIST_LIMIT,
  type RowReport,
  sortLists,
} from "./summary.js";
import {
  type ChunkAnswer,
  DONE,
  type InvalidRow,
  REPEAT,
  type ReadyRow,
  type RejectsSink,
  type RowFate,
  SEEN,
  type SentRow,
  UNCERTAIN,
} from "./types.js";

export interface SendInput<T> extends Pick<CheckInput, "ledgerDir" | "signal" | "conflictReason"> {
  /** Names the ledger file and the summary's wording. */
  kind: "invite" | "upsert" | "callbacks" | (string & {});
  /** Ledger identity of a group (called once per group). */
  target(group: string): LedgerTarget;
  /** Rows per request, already capped by `maxChunk`. */
  chunkSize: number;
  concurrency: number;
  restart?: boolean;
  retryUncertain?: boolean;
  /** `send` is still called (the API client prints and throws DryRunStop); no ledger writes. */
  dryRun?: boolean;
  /**
   * A reason to hold back a valid row met for the first time, whatever the ledger says (`invite bulk` holds
   * back candidates who finished the test): not sent, not recorded, not told to `onRow`; counted in `held`.
   */
  hold?(group: string, label: string, line: number): string | undefined;
  /** Sends one chunk (rows in input order); throws for a failed request. */
  send(group: string, rows: readonly SentRow<T>[], signal: AbortSignal): Promise<ChunkAnswer | undefined>;
  /** Opens the rejects file on first use; without it rejected rows are only reported. */
  rejects?: () => Promise<RejectsSink>;
  /** Rows read so far, rows whose fate is settled, and the rows the checking pass counted. */
  onProgress?(progress: { rows: number; done: number; total?: number }): void;
  /** Each row's fate as it is settled (why, for all but "sent" and "alreadyDone"); not for unsent rows. */
  onRow?(line: number, fate: RowFate, error?: string): void;
  /** Subscribes to the client's 429 answers (with the time each request was sent); returns the unsubscribe. */
  watchRateLimits?(onRateLimited: (sentAt: number) => void): () => void;
  /** What a person should hear of as it happens (the run slowing down for 429s, a ledger's unreadable lines). */
  onNotice?(message: string): void;
  /** Told once, when `signal` stops the run: the requests still out, which the run waits for, and their rows. */
  onStopping?(inflight: { requests: number; rows: number }): void;
  /**
   * Aborted when the process is about to exit without waiting for the requests still out (a second Ctrl-C):
   * `onStoppedNow` gets, synchronously, the result as it stands, their rows counted uncertain.
   */
  stopNow?: AbortSignal;
  onStoppedNow?(result: BulkResult): void;
}

interface Group<T> {
  id: string;
  ledger: Ledger;
  open?: Chunk<T>;
}

interface Chunk<T> {
  /** Numbered when it goes out; -1 while it fills. */
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

/** The summary's list of the rows of each fate that has a reason. */
const LISTS = { failed: "failures", uncertain: "uncertainRows", duplicate: "duplicateRows" } as const;

export class SendLoop<T> {
  private readonly result = emptyResult();
  private readonly groups = new Map<string, Group<T>>();
  /** Tells this run's chunks from other runs' in the ledger. */
  private readonly runId = randomBytes(4).toString("hex");
  private seq = 0;
  /** Chunks answered and not yet released into the result (waiting for an earlier one). */
  private readonly finished = new Map<number, { chunk: Chunk<T>; outcome: Outcome }>();
  private released = 0;
  private running = 0;
  private readonly limit: AdaptiveLimit;
  /** The fewest requests at once the run has said it keeps to (rateLimited). */
  private lowestSaid = Number.POSITIVE_INFINITY;
  private readonly inflight = new Set<Promise<void>>();
  private wake?: () => void;
  private stopped = false;
  private fatal?: unknown;
  /** Opened on the first rejected row; undefined once it could not be. */
  private rejects?: Promise<RejectsSink | undefined>;
  private settled = 0;
  /** The chunks whose request is out and whose answer has not come back. */
  private readonly out = new Set<Chunk<T>>();
  /** Never aborted by Ctrl-C: requests already out are let finish so their answers reach the ledger. */
  private readonly requestSignal = new AbortController().signal;

  constructor(
    private readonly job: SendInput<T>,
    private readonly checked: CheckedRows<T>,
  ) {
    if (job.dryRun) this.result.dryRun = true;
    this.limit = new AdaptiveLimit(job.concurrency);
  }

  async execute(): Promise<BulkResult> {
    const onAbort = () => {
      let rows = 0;
      for (const chunk of this.out) rows += chunk.rows.length;
      this.job.onStopping?.({ requests: this.out.size, rows });
      this.stop();
    };
    const onStopNow = () => this.job.onStoppedNow?.(this.resultNow());
    this.job.signal?.addEventListener("abort", onAbort, { once: true });
    this.job.stopNow?.addEventListener("abort", onStopNow, { once: true });
    const unwatch = this.job.watchRateLimits?.((sentAt) => this.rateLimited(sentAt));
    try {
      if (this.job.signal?.aborted) this.stop();
      try {
        await this.readAll();
      } catch (error) {
        // The spool could not be read back, or a ledger could not be opened.
        this.stop();
        await this.drain();
        // No chunk was settled yet: nothing was sent, so this is the run's own error.
        if (this.released === 0) throw error;
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
    } finally {
      this.job.signal?.removeEventListener("abort", onAbort);
      this.job.stopNow?.removeEventListener("abort", onStopNow);
      unwatch?.();
      await Promise.allSettled(this.inflight);
      for (const group of this.groups.values()) await group.ledger.close().catch(() => undefined);
      const rejects = await this.rejects;
      await rejects?.close();
      // A rerun whose rejected rows are an earlier run's file, byte for byte, names that file (rejects.ts).
      if (rejects) this.result.rejects = rejects.path;
    }
    // Rows still in open chunks when the run stopped were never sent.
    for (const group of this.groups.values()) this.result.unsent += group.open?.rows.length ?? 0;
    if (this.job.signal?.aborted) this.result.interrupted = true;
    sortLists(this.result);
    this.progress();
    if (this.fatal instanceof Error) (this.fatal as Error & BulkStopped).bulk = this.result;
    if (this.fatal) throw this.fatal;
    return this.result;
  }

  /** Fewer requests at once from now on; the client retries the rate-limited one itself. */
  private rateLimited(sentAt: number): void {
    if (!this.limit.rateLimited(sentAt)) return;
    const n = this.limit.current;
    // Said once for each new low: back up by one after calm answers, then down again, is no news.
    if (n >= this.lowestSaid) return;
    this.lowestSaid = n;
    this.job.onNotice?.(
      `The service is rate-limiting (HTTP 429): ${n} request${n === 1 ? "" : "s"} at once from now on`,
    );
  }

  private stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /**
   * The result as it stands when the process exits without waiting: answered chunks counted (their outcome is
   * in the ledger), the rows of requests still out uncertain (the ledger holds them as sent), every other row
   * of the input not sent. The run is over: this changes the result for good.
   */
  private resultNow(): BulkResult {
    const r = this.result;
    for (const [seq, { chunk, outcome }] of [...this.finished].sort(([a], [b]) => a - b)) {
      this.finished.delete(seq);
      if (chunk.rows.length > 0) this.apply(chunk, outcome);
    }
    // The rows of requests still out are listed like any uncertain row: the person has to find out about them.
    for (const chunk of this.out) {
      r.uncertain += chunk.rows.length;
      for (const row of chunk.rows)
        addRow(
          r,
          "uncertainRows",
          this.report(row, "sent, but the run stopped (second Ctrl-C) before the answer came"),
        );
    }
    r.chunks.total += this.out.size;
    r.chunks.uncertain += this.out.size;
    const counted =
      r.invalid + r.duplicates + (r.held ?? 0) + r.alreadyDone + r.uncertain + r.sent + r.unsent;
    r.unsent += Math.max(0, this.checked.rows - counted);
    r.rows = this.checked.rows;
    r.interrupted = true;
    sortLists(r);
    return r;
  }

  /** Every row goes through here, also after the run stopped: then it is only counted, not sent. */
  private async readAll(): Promise<void> {
    const r = this.result;
    for await (const batch of this.checked.replay(() => this.stopped)) {
      for (const row of batch) {
        r.rows++;
        if (row.invalid) {
          await this.invalid(row.invalid);
          continue;
        }
        const group = this.groups.get(row.group) ?? (await this.openGroup(row.group));
        const keys = group.ledger.keys;
        let flags: number;
        let duplicate: boolean;
        if (!row.dedupe) {
          flags = keys.update(row.hi, row.lo, SEEN);
          duplicate = (flags & SEEN) !== 0;
        } else {
          const seen = this.checked.take(row);
          if (seen > 0) {
            const { line, label } = row;
            const source = this.checked.sourceOf(row);
            await this.invalid({ line, label, error: conflictReason(this.job)(seen), source });
            continue;
          }
          flags = keys.get(row.hi, row.lo);
          duplicate = seen === REPEAT;
        }
        r.valid++;
        const held = duplicate ? undefined : this.job.hold?.(row.group, row.label, row.line);
        // Each branch but the last settles the row here.
        if (duplicate) {
          r.duplicates++;
          this.settle(row, "duplicate", "repeats an earlier row; sent once");
        } else if (held !== undefined) {
          r.held = (r.held ?? 0) + 1;
          r.heldRows ??= [];
          if (r.heldRows.length < LIST_LIMIT) r.heldRows.push(this.report(row, held));
        } else if (flags & DONE) {
          r.alreadyDone++;
          this.job.onRow?.(row.line, "alreadyDone");
        } else if (flags & UNCERTAIN && !this.job.retryUncertain) {
          r.uncertain++;
          this.settle(row, "uncertain", "sent by an earlier run whose answer never came");
        } else if (this.stopped) {
          // Not settled: the bar counts only rows whose fate is known.
          r.unsent++;
          continue;
        } else {
          group.open ??= { seq: -1, group, rows: [], hashes: [] };
          const chunk = group.open;
          chunk.rows.push(row);
          chunk.hashes.push(row.hi, row.lo);
          if (chunk.rows.length >= this.job.chunkSize) {
            group.open = undefined;
            await this.dispatch(chunk);
          }
          continue;
        }
        this.settled++;
      }
      this.progress();
    }
  }

  /** An invalid row: reported, and written to the rejects file. */
  private async invalid({ line, error, label, source }: InvalidRow): Promise<void> {
    this.result.invalid++;
    this.settled++;
    addRow(this.result, "invalidRows", { line, label: label ?? "", error });
    this.job.onRow?.(line, "invalid", error);
    await this.reject(source, line, error);
  }

  private report(row: ReadyRow<T>, error?: string): RowReport {
    return { line: row.line, label: row.label, error, ...(row.group !== "" ? { group: row.group } : {}) };
  }

  /** A row whose fate has a reason: listed in the summary, and told to `onRow`. */
  private settle(row: ReadyRow<T>, fate: keyof typeof LISTS, error: string): void {
    addRow(this.result, LISTS[fate], this.report(row, error));
    this.job.onRow?.(row.line, fate, error);
  }

  private async openGroup(id: string): Promise<Group<T>> {
    // A group first met after the run stopped is only counted: its ledger is read, not written or locked.
    const counting = this.stopped && !this.job.dryRun;
    const ledger = await Ledger.open(this.job.ledgerDir, this.job.kind, this.job.target(id), {
      restart: this.job.restart,
      readOnly: this.job.dryRun || counting,
      // The first group is sized for every row of the input (most inputs have one group); others grow.
      expected: this.groups.size === 0 ? this.checked.rows : undefined,
    });
    const group = { id, ledger };
    this.groups.set(id, group);
    if (!counting) this.result.ledgers.push(ledger.path);
    if (ledger.skippedLines > 0) this.job.onNotice?.(skippedWarning(ledger));
    return group;
  }

  /** Starts a chunk when a request slot is free and the reorder window has room (backpressure on the reader). */
  private async dispatch(chunk: Chunk<T>): Promise<void> {
    // Numbered when it goes out, so a group's half-filled chunk never holds back the release of others.
    chunk.seq = this.seq++;
    // Its keys go to the ledger now, while the requests before it are out (begin waits for them). A dry run's
    // ledger is read-only: it writes nothing.
    const id = `${this.runId}-${chunk.seq}`;
    const { group, hashes, rows } = chunk;
    void group.ledger.prepare(id, Uint32Array.from(hashes), [rows[0]!.line, rows.at(-1)!.line]);
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
    const task = this.sendChunk(chunk, id).finally(() => {
      this.inflight.delete(task);
      this.wake?.();
    });
    this.inflight.add(task);
  }

  private async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  /** Records, sends and records the answer of one chunk; its request slot is freed once, when the request is over. */
  private async sendChunk(chunk: Chunk<T>, id: string): Promise<void> {
    const { ledger } = chunk.group;
    let holding = true;
    const freeSlot = () => {
      if (!holding) return;
      holding = false;
      this.running--;
      this.wake?.();
    };
    try {
      try {
        await ledger.begin(id);
      } catch (error) {
        freeSlot();
        // The failed write may have left its "send" readable: say, if the ledger still can, that nothing went out.
        await ledger
          .end(id, { t: "fail", error: "not sent: the ledger could not be written" })
          .catch(() => undefined);
        this.finish(chunk, { kind: "fatal", error: ledgerError(ledger.path, error), sent: false });
        return;
      }
      let outcome: Outcome;
      this.out.add(chunk);
      try {
        const answer = await this.job.send(chunk.group.id, chunk.rows, this.requestSignal);
        this.limit.answered();
        outcome = answer?.refused
          ? { kind: "refused", error: answer.refused }
          : { kind: "ok", answer: answer ?? {} };
      } catch (error) {
        outcome = classify(error);
      } finally {
        this.out.delete(chunk);
      }
      // A fatal answer stops the run before its slot could take another chunk.
      if (outcome.kind === "fatal") this.setFatal(outcome.error);
      // The slot is free once the answer is in: recording it (end) can share the next chunk's flush (begin).
      freeSlot();
      let unrecorded: CliError | undefined;
      try {
        await ledger.end(id, toLedger(outcome));
      } catch (error) {
        // The answer is known but not recorded: the rerun will see this chunk as uncertain.
        unrecorded = ledgerError(ledger.path, error);
      }
      this.finish(chunk, outcome);
      if (unrecorded) this.setFatal(unrecorded);
    } finally {
      freeSlot();
    }
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
    if (outcome.kind === "fatal" && !outcome.sent) {
      r.unsent += n;
      return;
    }
    this.settled += n;
    if (outcome.kind === "dry") {
      r.chunks.total++;
      r.wouldSend = (r.wouldSend ?? 0) + n;
      return;
    }
    r.chunks.total++;
    // Rows of unknown outcome are `uncertain`, not also `sent` (CLI.md: the counts add up to the input's rows).
    if (outcome.kind !== "uncertain") r.sent += n;
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
          this.fail(row, failure.error, true);
        }
        append(r.unmatched, outcome.answer.unmatched ?? []);
        if (failed) {
          for (const [i, row] of chunk.rows.entries()) if (!failed.has(i)) this.job.onRow?.(row.line, "sent");
        }
        break;
      }
      case "refused":
      case "fatal": {
        r.chunks.failed++;
        r.failed += n;
        // Rows the service refused go to the rejects file; those of a stopped run (credentials) do not.
        const refused = outcome.kind === "refused";
        const error = refused ? outcome.error : errorText(outcome.error);
        for (const row of chunk.rows) this.fail(row, error, refused);
        break;
      }
      case "uncertain":
        r.chunks.uncertain++;
        r.uncertain += n;
        for (const row of chunk.rows) this.settle(row, "uncertain", outcome.error);
        break;
    }
    this.progress();
  }

  private fail(row: ReadyRow<T>, error: string, reject: boolean): void {
    this.settle(row, "failed", error);
    if (reject) void this.reject(this.checked.sourceOf(row), row.line, error);
  }

  /**
   * Writes a rejected row, in the order of the calls; the sink is opened on first use. A sink that cannot be
   * opened stops the run; this never rejects, so callers need not wait.
   */
  private async reject(source: unknown, line: number, error: string): Promise<void> {
    if (!this.job.rejects || this.job.dryRun) return;
    this.rejects ??= this.job.rejects().catch((failure: unknown) => {
      this.setFatal(failure);
      return undefined;
    });
    (await this.rejects)?.write(source, line, error);
  }

  private progress(): void {
    this.job.onProgress?.({ rows: this.result.rows, done: this.settled, total: this.checked.rows });
  }
}

function classify(error: unknown): Outcome {
  if (error instanceof DryRunStop) return { kind: "dry" };
  if (error instanceof UncertainError) {
    return { kind: "uncertain", error: `${error.message.replace(/^\w+ \S+: /, "")} (the answer was lost)` };
  }
  if (error instanceof AuthError) return { kind: "fatal", error, sent: error.status !== undefined };
  // The service said it did not do it (a 2xx answer of `false`): refused, to be sent again.
  if (error instanceof RefusedError) return { kind: "refused", error: error.messages.join("; ") };
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return { kind: "fatal", error, sent: true };
    // A 2xx whose answer cannot be read: the service took the chunk, which rows it refused is unknown.
    const status = error.status ?? 0;
    if (status >= 200 && status < 300) {
      const why = error.messages.join("; ");
      return {
        kind: "uncertain",
        error: `taken (HTTP ${status}), but ${why.charAt(0).toLowerCase()}${why.slice(1)}`,
      };
    }
    return { kind: "refused", error: `HTTP ${error.status}: ${error.messages.join("; ")}` };
  }
  if (error instanceof NetworkError) return { kind: "fatal", error, sent: false };
  // A request body our own schema refused never left this machine.
  if (error instanceof Error && error.name === "ZodError") return { kind: "fatal", error, sent: false };
  // Anything else happened between sending and reading the answer: it may have been processed.
  return { kind: "uncertain", error: errorText(error) };
}

function toLedger(outcome: Outcome): ChunkOutcome {
  if (outcome.kind === "ok") {
    const failed = (outcome.answer.failed ?? []).map((f) => f.index);
    return failed.length > 0 ? { t: "ok", failed } : { t: "ok" };
  }
  if (outcome.kind === "uncertain") return { t: "uncertain", error: outcome.error };
  if (outcome.kind === "refused") return { t: "fail", error: outcome.error };
  if (outcome.kind === "dry") return { t: "fail", error: "dry run" };
  const error = errorText(outcome.error);
  return {
    t: "fail",
    error: outcome.sent || !(outcome.error instanceof NetworkError) ? error : `not delivered: ${error}`,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
