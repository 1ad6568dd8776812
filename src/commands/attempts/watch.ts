/**
 * `assess attempts watch`: completion notifications for those who cannot receive them. Polls the attempt
 * listing every --interval, shows each attempt that finished once, and can hand each to a command (--exec)
 * or POST it to a URL, Slack or Teams (--forward), at least once (./watch-deliver.ts). What it has shown and
 * what it has yet to deliver are kept in a state file (./watch-state.ts), so a restart, or the next `--once`
 * from cron, neither repeats an attempt nor misses one.
 */
import type { TestAttempt } from "../../api/schemas.js";
import { keyFingerprint } from "../../bulk/engine/ledger.js";
import { effectiveValues } from "../../config/resolve.js";
import { configDir } from "../../config/store.js";
import type { Context } from "../../context.js";
import { ApiError, InterruptedError, NetworkError, UsageError } from "../../errors.js";
import { Output, type Row } from "../../output/output.js";
import { formatDuration, toServiceTime } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { duration, id, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import type { Client } from "../../sdk/client.js";
import { Forwarder, parseDestination } from "../callbacks/forward.js";
import { signerOf } from "../callbacks/signing.js";
import { ATTEMPT_COLUMNS } from "./list.js";
import { attemptsOfPeriod, confirmCalls } from "./period.js";
import {
  type Deliverer,
  deliverPending,
  describePending,
  ExecDeliverer,
  enqueue,
  ForwardDeliverer,
  pause,
} from "./watch-deliver.js";
import {
  deadLetterPath,
  loadWatchState,
  lockWatchState,
  pruneShown,
  saveWatchState,
  type WatchState,
  watchStatePath,
} from "./watch-state.js";

/** Each poll reaches this far back before the last one's end: attempts the service records late still show. */
export const OVERLAP_MS = 10 * 60_000;
/** The shortest --interval: polling faster only spends the account's rate limit. */
export const MIN_INTERVAL_MS = 5_000;
/** Backing off stops growing here (or at --interval, when that is longer). */
export const MAX_BACKOFF_MS = 15 * 60_000;

export const options = z.object({
  test: z.array(id()).min(1, "give at least one test id").optional(),
  interval: duration(MIN_INTERVAL_MS),
  since: duration(1000),
  exec: z.string().min(1).optional(),
  execEnvKey: z.boolean().optional(),
  forward: parsed((text) => parseDestination(text, FLAG)).optional(),
  forwardTimeout: duration(1000),
  signingSecret: z.string().optional(),
  giveUpAfter: duration(1000),
  once: z.boolean().optional(),
  yes: z.boolean().optional(),
});
type Options = z.infer<typeof options>;

export async function run(ctx: Context, o: Options): Promise<number> {
  if (o.exec !== undefined && o.forward !== undefined) {
    throw new UsageError("--exec and --forward cannot be used together", "Choose one of them.");
  }
  // ASSESS_WEBHOOK_SECRET is read (and checked) only where something is signed.
  const signer = o.forward?.kind === "json" ? signerOf(o.signingSecret, ctx.io.env) : undefined;
  if (o.signingSecret !== undefined && o.forward?.kind !== "json") {
    throw new UsageError(
      "--signing-secret signs what --forward sends to a plain URL",
      "Give --forward <url>, or leave --signing-secret out.",
    );
  }
  const tests = [...new Set(o.test ?? [])].sort((a, b) => a - b);
  const out = watchOutput(ctx, o.once === true);
  if (o.exec !== undefined || o.forward !== undefined)
    ctx.planWithReads("Reading attempts to show what --exec or --forward would do");
  const client = await ctx.client();
  const path = watchStatePath(configDir(ctx.io.env), {
    profile: ctx.profileName,
    baseUrl: ctx.targetBaseUrl("assess"),
    key: keyFingerprint(client.api.client.options.apiKey),
    tests,
  });
  // A test of another account, or a typo, is an error now rather than a watch that never shows anything.
  for (const testId of tests) await client.tests.get(testId);

  const deliverer: Deliverer | undefined =
    o.exec !== undefined
      ? new ExecDeliverer(o.exec, o.execEnvKey === true)
      : o.forward !== undefined
        ? new ForwardDeliverer(new Forwarder(o.forward, signer, o.forwardTimeout))
        : undefined;
  const unlock = lockWatchState(path);
  try {
    return await watch(ctx, o, { client, out, path, tests, deliverer });
  } finally {
    unlock();
    await deliverer?.close();
  }
}

interface Watch {
  client: Client;
  out: Output;
  path: string;
  tests: number[];
  deliverer?: Deliverer;
}

async function watch(
  ctx: Context,
  o: Options,
  { client, out, path, tests, deliverer }: Watch,
): Promise<number> {
  // A dry run shows what it would do and records nothing: the next real run does it all.
  const save = (state: WatchState): void => {
    if (!ctx.dryRun) saveWatchState(path, state);
  };
  const saved = loadWatchState(path);
  const now = wholeSecond(Date.now());
  // A state polled up to a time still to come (a clock put back, an edited file) starts now.
  let from = saved
    ? new Date(Math.min(now, Date.parse(saved.polledUntil) - OVERLAP_MS))
    : new Date(now - o.since);
  // A state polled up to long ago (restored from an old backup, or edited) is as many calls as a long --since.
  await confirmCalls(ctx, { start: from, end: new Date(now) }, o.yes === true);
  const start = from;
  // A first run stopped before its first poll ended starts the next one where it started itself.
  const state: WatchState = saved ?? {
    version: 1,
    baseUrl: ctx.targetBaseUrl("assess"),
    tests,
    polledUntil: toServiceTime(new Date(from.getTime() + OVERLAP_MS)),
    shown: {},
  };

  const printer = new Printer(out);
  // While it waits for its next poll on a terminal, the status line says it is still polling (erased before
  // anything else is written, and when the watch stops).
  const idle = ctx.statusLine;
  const counts = { shown: 0, polls: 0, delivered: 0, deadLettered: 0 };
  const what = tests.length > 0 ? `test${tests.length > 1 ? "s" : ""} ${tests.join(", ")}` : "all tests";
  const pendingAtStart = state.pending?.length ?? 0;
  if (!o.once) {
    const whence = !saved
      ? toServiceTime(from)
      : from.getTime() === now
        ? `${toServiceTime(from)} (the state says ${saved.polledUntil}, a time still to come)`
        : `${toServiceTime(from)} (${formatDuration(OVERLAP_MS)} before ${saved.polledUntil}, where the last run stopped)`;
    ctx.info(
      `Watching finished attempts of ${what} every ${formatDuration(o.interval)}, from ${whence}; Ctrl-C stops.`,
    );
  }
  if (pendingAtStart > 0 && deliverer) {
    ctx.info(
      `${pendingAtStart} deliver${pendingAtStart === 1 ? "y" : "ies"} left by earlier runs (${deliverer.name}): trying ${pendingAtStart === 1 ? "it" : "them"} first.`,
    );
  }

  let failures = 0;
  let interrupted = false;
  try {
    for (;;) {
      const until = new Date(wholeSecond(Date.now()));
      if (from.getTime() > until.getTime()) from = until;
      let fresh: TestAttempt[];
      try {
        fresh = await poll(ctx, client, { start: from, end: until }, tests, state);
      } catch (error) {
        if (error instanceof InterruptedError) {
          interrupted = true;
          break;
        }
        const trouble = o.once ? undefined : transient(error);
        if (!trouble) throw error;
        failures++;
        const growing = o.interval * 2 ** failures;
        const wait = Math.max(
          Math.min(growing, Math.max(o.interval, MAX_BACKOFF_MS)),
          trouble.retryAfterMs ?? 0,
        );
        ctx.warn(`${trouble.reason}; next poll in ${formatDuration(wait)}`);
        if (await pause(wait, ctx.signal)) {
          interrupted = true;
          break;
        }
        continue;
      }
      failures = 0;
      counts.polls++;

      const seenAt = toServiceTime(until);
      await printer.batch(fresh);
      let readerGone = false;
      for (const attempt of fresh) {
        if (!printer.batched) await printer.one(attempt);
        // Written to a reader that went away, an attempt reached no one: the next run shows it again. A failed
        // write comes back as an 'error' on a later tick: that tick comes before the attempt counts as shown.
        if (!deliverer && (await readerWentAway(out))) {
          readerGone = true;
          break;
        }
        if (ctx.dryRun && deliverer) {
          ctx.info(`[dry-run] would deliver attempt ${attempt.testInvitationId} (${deliverer.name})`);
        } else if (deliverer) enqueue(state, attempt);
        state.shown[String(attempt.testInvitationId)] = seenAt;
        counts.shown++;
      }
      if (readerGone) {
        save(state);
        ctx.info("The reader of the output went away; stopping.");
        break;
      }
      // Shown and queued before any delivery starts: a crash from here on delivers them on the next run.
      save(state);
      if (deliverer && !ctx.dryRun) {
        const round = await deliverPending(ctx, deliverer, state, path, {
          all: counts.polls === 1,
          giveUpAfterMs: o.giveUpAfter,
          intervalMs: o.interval,
          maxBackoffMs: MAX_BACKOFF_MS,
          save: () => save(state),
        });
        counts.delivered += round.delivered;
        counts.deadLettered += round.deadLettered;
        // Ctrl-C during a command or a POST: what is done is recorded, the rest waits for the next run.
        if (ctx.signal.aborted) {
          interrupted = true;
          break;
        }
      }
      state.polledUntil = seenAt;
      from = new Date(until.getTime() - OVERLAP_MS);
      pruneShown(state, from);
      save(state);

      if (o.once) break;
      if (out.closed) {
        ctx.info("The reader of the output went away; stopping.");
        break;
      }
      idle.show(
        `Watching ${what}: last poll ${seenAt.slice(11, 19)}Z, next in ${formatDuration(o.interval)}; ` +
          `${counts.shown} shown${state.pending?.length ? `, ${state.pending.length} pending` : ""} (Ctrl-C stops)`,
      );
      const stopped = ctx.signal.aborted || (await pause(o.interval, ctx.signal));
      idle.clear();
      if (stopped) {
        interrupted = true;
        break;
      }
    }
  } finally {
    idle.clear();
    await printer.end();
  }

  const pending = ctx.dryRun || !deliverer ? [] : (state.pending ?? []);
  if (pending.length > 0) {
    ctx.warn(
      `${pending.length} deliver${pending.length === 1 ? "y is" : "ies are"} still pending (${deliverer!.name}): ${describePending(pending)}; the next run tries again.`,
    );
  }
  if (counts.deadLettered > 0) {
    ctx.warn(
      `${counts.deadLettered} deliver${counts.deadLettered === 1 ? "y was" : "ies were"} given up: see ${deadLetterPath(path)}`,
    );
    ctx.hint(
      "each line holds the attempt (.attempt) and the last error: fix the receiver or the command, then hand them over yourself, e.g. with jq -c .attempt",
    );
  }
  if (o.once && !interrupted) {
    if (counts.shown === 0 && pendingAtStart === 0 && ctx.io.stderr.isTTY) {
      ctx.info(`No attempts of ${what} finished since ${toServiceTime(start)}.`);
    }
    // Cron mails a failing job's output: a delivery not done, or given up, must reach someone.
    return pending.length > 0 || counts.deadLettered > 0 ? 1 : 0;
  }
  const kept = ctx.dryRun ? "nothing recorded (--dry-run)" : `state kept in ${path}`;
  const delivered = deliverer && !ctx.dryRun ? `, ${counts.delivered} delivered` : "";
  ctx.info(
    `Stopped after ${counts.polls} poll${counts.polls === 1 ? "" : "s"}: ${counts.shown} attempt${counts.shown === 1 ? "" : "s"} shown${delivered}; ${kept}`,
  );
  return interrupted || ctx.signal.aborted ? 130 : 0;
}

/** The attempts of one poll not shown before, of the tests watched, in the listing's order. */
async function poll(
  ctx: Context,
  client: Client,
  period: { start: Date; end: Date },
  tests: number[],
  state: WatchState,
): Promise<TestAttempt[]> {
  const fresh: TestAttempt[] = [];
  for await (const page of attemptsOfPeriod(ctx, client, period)) {
    for (const attempt of page) {
      if (tests.length > 0 && !tests.includes(Number(attempt.testId))) continue;
      if (state.shown[String(attempt.testInvitationId)] !== undefined) continue;
      fresh.push(attempt);
    }
  }
  return fresh;
}

/** Why a poll failed, when waiting may help: a rate limit, the service failing, or the network. */
function transient(error: unknown): { reason: string; retryAfterMs?: number } | undefined {
  if (error instanceof ApiError) {
    const retryAfterMs = readRetryAfter(error.retryAfter);
    if (error.status === 429) return { reason: "Rate limited", retryAfterMs };
    if ((error.status ?? 0) >= 500)
      return { reason: `The service failed (HTTP ${error.status})`, retryAfterMs };
    return undefined;
  }
  if (error instanceof NetworkError) return { reason: `Cannot reach the service: ${error.message}` };
  return undefined;
}

/** Retry-After in seconds or as an HTTP date, up to MAX_BACKOFF_MS; undefined when absent or unreadable. */
function readRetryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? undefined : Math.min(MAX_BACKOFF_MS, Math.max(0, Math.round(ms)));
}

/**
 * The output of a watch: as every list's (`-o`, `--json`, the profile's `output`), except that piped with no
 * format asked for it is NDJSON, one attempt a line as it comes, for the next program in the pipe. A watch
 * that keeps running cannot end a JSON array: `-o json` is NDJSON then too.
 */
function watchOutput(ctx: Context, once: boolean): Output {
  const requested = effectiveValues(ctx.flags, ctx.io.env).output.value;
  const out = ctx.out;
  if ((requested === undefined && ctx.io.stdout.isTTY !== true) || (out.format === "json" && !once)) {
    return new Output(ctx.io.stdout, { ...out.options, format: "ndjson" });
  }
  return out;
}

/**
 * Writes attempts as they are shown. Tables (and the one JSON array of `--once -o json`) are written a poll at
 * a time; NDJSON, TSV and CSV one attempt at a time through one long list, so TSV and CSV have one header.
 */
class Printer {
  private feed?: Feed;

  constructor(private readonly out: Output) {}

  /** Whether attempts are written a poll at a time (by batch) rather than one by one (by one). */
  get batched(): boolean {
    return this.out.format === "table" || this.out.format === "json";
  }

  async batch(attempts: TestAttempt[]): Promise<void> {
    if (!this.batched || attempts.length === 0) return;
    await this.out.list(attempts as Row[], ATTEMPT_COLUMNS);
  }

  async one(attempt: TestAttempt): Promise<void> {
    this.feed ??= new Feed(this.out);
    await this.feed.write([attempt as Row]);
  }

  async end(): Promise<void> {
    await this.feed?.end();
  }
}

/**
 * One `Output.list` kept open across polls: `write` hands it a page and returns once the page is written
 * (the list asked for the next one), or once the list stopped (stdout's reader went away).
 */
class Feed {
  private pending?: { rows: Row[]; written: () => void };
  private wake?: () => void;
  private ended = false;
  private readonly listed: Promise<number>;

  constructor(out: Output) {
    this.listed = out.list(this.pages(), ATTEMPT_COLUMNS);
    // Seen by whoever awaits write or end; never an unhandled rejection meanwhile.
    this.listed.catch(() => undefined);
  }

  private async *pages(): AsyncGenerator<Row[]> {
    for (;;) {
      while (!this.pending && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
      const page = this.pending;
      if (!page) return;
      this.pending = undefined;
      yield page.rows;
      // The list came back for more: every row of the page is written.
      page.written();
    }
  }

  async write(rows: Row[]): Promise<void> {
    const written = new Promise<void>((resolve) => {
      this.pending = { rows, written: resolve };
    });
    this.wake?.();
    await Promise.race([written, this.listed]);
  }

  async end(): Promise<void> {
    this.ended = true;
    this.wake?.();
    await this.listed;
  }
}

/** Whether stdout's reader is gone, once the writes made so far have had their tick to fail. */
async function readerWentAway(out: Output): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return out.closed;
}

function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
