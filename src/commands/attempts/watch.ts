/**
 * `assess attempts watch`: completion notifications for those who cannot receive them. Polls the attempt
 * listing every --interval, shows each attempt that finished once, and can hand each to a command (--exec)
 * or POST it to a URL (--forward). What it has shown is kept in a state file (./watch-state.ts), so a
 * restart, or the next `--once` from cron, neither repeats an attempt nor misses one.
 */
import { spawn } from "node:child_process";
import { backoffMs, retryAfterMs } from "../../api/retry.js";
import type { TestAttempt } from "../../api/schemas.js";
import { Agent, type Dispatcher, request } from "../../api/undici.js";
import { keyFingerprint } from "../../bulk/engine/ledger.js";
import { effectiveValues } from "../../config/resolve.js";
import { configDir } from "../../config/store.js";
import type { Context } from "../../context.js";
import { ApiError, InterruptedError, NetworkError, UsageError } from "../../errors.js";
import { jsonText } from "../../escape.js";
import { Output, type Row } from "../../output/output.js";
import { formatDuration, toServiceTime } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { duration, httpUrl, id, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import type { Client } from "../../sdk/client.js";
import { VERSION } from "../../version.js";
import { ATTEMPT_COLUMNS } from "./list.js";
import { attemptsOfPeriod, confirmCalls } from "./period.js";
import {
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
/** A forward is tried this many times (network errors, 408, 429, 5xx) before it is given up. */
const FORWARD_TRIES = 4;
const FORWARD_TIMEOUT_MS = 10_000;

export const options = z.object({
  test: z.array(id()).min(1, "give at least one test id").optional(),
  interval: duration(MIN_INTERVAL_MS),
  since: duration(1000),
  exec: z.string().min(1).optional(),
  forward: parsed((text) => httpUrl(text, FLAG)).optional(),
  once: z.boolean().optional(),
  yes: z.boolean().optional(),
});
type Options = z.infer<typeof options>;

export async function run(ctx: Context, o: Options): Promise<number> {
  if (o.exec !== undefined && o.forward !== undefined) {
    throw new UsageError("--exec and --forward cannot be used together", "Choose one of them.");
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

  const unlock = lockWatchState(path);
  try {
    return await watch(ctx, o, { client, out, path, tests });
  } finally {
    unlock();
  }
}

async function watch(
  ctx: Context,
  o: Options,
  { client, out, path, tests }: { client: Client; out: Output; path: string; tests: number[] },
): Promise<number> {
  // A dry run shows what it would do and records nothing: the next real run does it all.
  const save = (state: WatchState): void => {
    if (!ctx.dryRun) saveWatchState(path, state);
  };
  const saved = loadWatchState(path);
  let from = saved
    ? new Date(Date.parse(saved.polledUntil) - OVERLAP_MS)
    : new Date(wholeSecond(Date.now()) - o.since);
  if (!saved) await confirmCalls(ctx, { start: from, end: new Date() }, o.yes === true);
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
  const forwarder = o.forward === undefined ? undefined : new Forwarder(o.forward);
  const counts = { shown: 0, polls: 0 };
  const what = tests.length > 0 ? `test${tests.length > 1 ? "s" : ""} ${tests.join(", ")}` : "all tests";
  if (!o.once) {
    ctx.info(
      `Watching finished attempts of ${what} every ${formatDuration(o.interval)}, from ${toServiceTime(from)}` +
        `${saved ? " (where the last run stopped)" : ""}; Ctrl-C stops.`,
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
      const acting = o.exec !== undefined || forwarder !== undefined;
      await printer.batch(fresh);
      let readerGone = false;
      for (const attempt of fresh) {
        if (!printer.batched) await printer.one(attempt);
        // Written to a reader that went away, an attempt reached no one: the next run shows it again. A failed
        // write comes back as an 'error' on a later tick: that tick comes before the attempt counts as shown.
        if (!acting && (await readerWentAway(out))) {
          readerGone = true;
          break;
        }
        if (ctx.dryRun && acting) {
          const action = o.exec !== undefined ? `run --exec` : `POST it to ${o.forward}`;
          ctx.info(`[dry-run] would ${action} for attempt ${attempt.testInvitationId}`);
        } else if (o.exec !== undefined) await execFor(ctx, o.exec, attempt);
        if (forwarder && !ctx.dryRun && !(await forwarder.send(ctx, attempt))) {
          // Interrupted while waiting to try again: not delivered, so the next run shows and sends it again.
          interrupted = true;
          break;
        }
        state.shown[String(attempt.testInvitationId)] = seenAt;
        counts.shown++;
        // A command run or a POST made is never done twice: each is recorded as soon as it is done.
        if (acting) {
          save(state);
          // Ctrl-C during a command or a POST: that one is done and recorded, the rest wait for the next run.
          if (ctx.signal.aborted) interrupted = true;
        }
        if (interrupted) break;
      }
      if (interrupted || readerGone) {
        save(state);
        if (readerGone) ctx.info("The reader of the output went away; stopping.");
        break;
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
      if (ctx.signal.aborted || (await pause(o.interval, ctx.signal))) {
        interrupted = true;
        break;
      }
    }
  } finally {
    await printer.end();
    await forwarder?.close();
  }

  if (o.once && !interrupted) {
    if (counts.shown === 0 && ctx.io.stderr.isTTY) {
      ctx.info(`No attempts of ${what} finished since ${toServiceTime(start)}.`);
    }
    return 0;
  }
  const kept = ctx.dryRun ? "nothing recorded (--dry-run)" : `state kept in ${path}`;
  ctx.info(
    `Stopped after ${counts.polls} poll${counts.polls === 1 ? "" : "s"}: ${counts.shown} attempt${counts.shown === 1 ? "" : "s"} shown; ${kept}`,
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

/**
 * Runs `command` through the shell with the attempt as JSON on stdin (and its ids in ASSESS_TEST_INVITATION_ID
 * and ASSESS_TEST_ID), and waits for it. Its output goes to stderr: stdout carries the attempts alone. A
 * failure is reported and the watch goes on: the attempt was shown.
 */
async function execFor(ctx: Context, command: string, attempt: TestAttempt): Promise<void> {
  const id = attempt.testInvitationId;
  const result = await new Promise<{ code: number | null; signal: string | null; error?: Error }>(
    (resolve) => {
      const child = spawn(command, {
        shell: true,
        stdio: ["pipe", "pipe", "pipe"],
        env: {
          ...ctx.io.env,
          ASSESS_TEST_INVITATION_ID: String(id),
          ASSESS_TEST_ID: attempt.testId == null ? "" : String(attempt.testId),
        },
      });
      child.stdout.on("data", (chunk: Buffer) => ctx.io.stderr.write(chunk));
      child.stderr.on("data", (chunk: Buffer) => ctx.io.stderr.write(chunk));
      // A command that does not read its stdin closes it early: not a failure of the command.
      child.stdin.on("error", () => undefined);
      child.stdin.end(`${jsonText(attempt)}\n`);
      child.on("error", (error) => resolve({ code: null, signal: null, error }));
      child.on("close", (code, signal) => resolve({ code, signal }));
    },
  );
  if (result.error) ctx.warn(`--exec could not run for attempt ${id}: ${result.error.message}`);
  else if (result.signal) ctx.warn(`--exec was killed by ${result.signal} for attempt ${id}`);
  else if (result.code !== 0) ctx.warn(`--exec exited with ${result.code} for attempt ${id}`);
}

/**
 * POSTs each attempt as JSON to the --forward URL over a connection pool of its own, trying again on network
 * errors, 408, 429 and 5xx (waiting as Retry-After says when it does). The API key is never sent there.
 */
class Forwarder {
  private readonly agent: Dispatcher = new Agent({ connect: { timeout: FORWARD_TIMEOUT_MS } });

  constructor(private readonly url: string) {}

  /** False when interrupted before the attempt was delivered or given up. */
  async send(ctx: Context, attempt: TestAttempt): Promise<boolean> {
    const id = attempt.testInvitationId;
    const body = jsonText(attempt);
    for (let attempted = 1; ; attempted++) {
      let problem: string;
      let hinted: number | undefined;
      try {
        const res = await request(this.agent, this.url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": `assess/${VERSION}` },
          body,
          headersTimeout: FORWARD_TIMEOUT_MS,
          bodyTimeout: FORWARD_TIMEOUT_MS,
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) return true;
        problem = `HTTP ${res.statusCode}`;
        if (!(res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500)) {
          ctx.warn(`--forward of attempt ${id} to ${this.url} was refused (${problem}); not sent again`);
          return true;
        }
        const header = res.headers["retry-after"];
        hinted = retryAfterMs(Array.isArray(header) ? header[0] : header);
      } catch (error) {
        problem = (error as { code?: string }).code ?? (error as Error).message;
      }
      if (attempted >= FORWARD_TRIES) {
        ctx.warn(
          `--forward of attempt ${id} to ${this.url} failed ${FORWARD_TRIES} times (${problem}); given up`,
        );
        return true;
      }
      const wait = hinted ?? Math.max(500, backoffMs(attempted + 1));
      ctx.warn(`--forward of attempt ${id}: ${problem}; trying again in ${formatDuration(wait)}`);
      if (await pause(wait, ctx.signal)) return false;
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Waits `ms`; true when Ctrl-C came first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (aborted: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(aborted);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Whether stdout's reader is gone, once the writes made so far have had their tick to fail. */
async function readerWentAway(out: Output): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return out.closed;
}

function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
