/**
 * `assess attempts watch`: polls the attempt listing every --interval and shows each finished attempt once;
 * --exec or --forward hand each on at least once (./watch-deliver.ts). A state file (./watch-state.ts) keeps
 * a restart, or the next `--once` from cron, from repeating an attempt or missing one.
 */

import type { Command } from "commander";
import { retryAfterMs } from "../../api/retry.js";
import type { TestAttempt } from "../../api/schemas.js";
import { keyFingerprint } from "../../bulk/engine/ledger.js";
import { effectiveValues } from "../../config/resolve.js";
import { configDir } from "../../config/store.js";
import type { Context } from "../../context.js";
import { attemptsOfPeriod, requireTests } from "../../core/finished-attempts.js";
import { Forwarder, parseDestination } from "../../core/forward.js";
import { concerns, missingTests } from "../../core/rules/evaluate.js";
import { rulesError } from "../../core/rules/problems.js";
import { readRules } from "../../core/rules/read.js";
import { signerFor } from "../../core/signing.js";
import { ApiError, InterruptedError, NetworkError, UsageError } from "../../errors.js";
import { Output, type Row } from "../../output/output.js";
import { formatDuration, parseDate, parseDuration, toServiceTime } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { id, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import type { Client } from "../../sdk/client.js";
import { forwardTimeout, signingSecret } from "../shared/common-flags.js";
import { flag } from "../shared/flags.js";
import { confirmCalls, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { ATTEMPT_COLUMNS } from "./list.js";
import {
  backoff,
  type Deliverer,
  deliverPending,
  describePending,
  execDeliverer,
  forwardDeliverer,
  MAX_BACKOFF_MS,
  pause,
} from "./watch-deliver.js";
import { replayDeadLetters } from "./watch-replay.js";
import { CHECK_RULES, rulesDeliverer } from "./watch-rules.js";
import {
  deadLetterPath,
  loadWatchState,
  lockWatchState,
  type PendingDelivery,
  type WatchState,
  WatchStore,
  watchStatePath,
} from "./watch-state.js";

/** Each poll reaches this far back before the last one's end: attempts the service records late still show. */
const OVERLAP_MS = 10 * 60_000;
/** The shortest --interval: polling faster only spends the account's rate limit. */
const MIN_INTERVAL_MS = 5_000;

const flags = {
  test: flag.list(
    "<id>",
    "only these tests' attempts (repeatable, or comma-separated)",
    id(),
    "give at least one test id",
  ),
  interval: flag
    .duration("time between polls: 30s, 5m, 1h (at least 5s)", { min: MIN_INTERVAL_MS })
    .default("60s"),
  since: flag
    .of(
      "<date>",
      "how far back the first run looks (1h, 2d, or a date); later runs go on from where the last one stopped. With --replay-dead-letters: only the letters given up since then (all when left out)",
      parsed(sinceMs),
    )
    .default("1h"),
  exec: flag.of(
    "<command>",
    "run this shell command for each attempt, one at a time, with the attempt as JSON on stdin (its output goes to stderr); done when it exits 0",
    z.string().min(1),
  ),
  execEnvKey: flag.bool("pass ASSESS_API_KEY on to --exec (left out of its environment by default)"),
  execEnvSecret: flag.bool(
    "pass ASSESS_WEBHOOK_SECRET, the signing secret, on to --exec (left out of its environment by default)",
  ),
  forward: flag.of(
    "<url>",
    "POST each attempt as JSON to this URL (no API key sent; messages and files show it without user info or query: https://host/path?…); slack:<webhook URL> or teams:<workflow URL> posts a message; done on a 2xx",
    parsed((text) => parseDestination(text, FLAG)),
  ),
  rules: flag.of(
    "<rules.yaml>",
    "check each attempt's report against these rules and take the actions of those that hold (invite to a next test, forward, append to a CSV shortlist, exec), each once per attempt and rule, delivered as --forward's are; `assess rules check --help` shows the file",
    z.string().min(1),
  ),
  forwardTimeout: forwardTimeout(),
  signingSecret: signingSecret(),
  giveUpAfter: flag
    .duration(
      "how long a delivery that keeps failing stays pending before it goes to the dead-letter file beside the state (rotated at 64 MiB: the full one becomes <name>.dead-letter.1.ndjson, replacing the one before); a destination answering 410 Gone is stopped: what is pending for it, and every later delivery, goes to that file at once, also in later runs",
    )
    .default("7d"),
  once: flag.bool(
    "poll once, show and deliver what is new, and exit; exit 1 while a delivery is pending or when this run gave one up (for cron)",
  ),
  yes: periodYes(),
  replayDeadLetters: flag.bool(
    "put the dead letters back to be delivered to --forward or --exec, try them once and exit (1 while one is pending or dead again; JSON counts with --json); each is marked in the watch state so a rerun never replays it twice (the file keeps it), a failing one is dead-lettered again as a new line; resumes a destination stopped by 410 Gone",
  ),
};
type Options = OptionsOf<typeof flags>;

export default verb({
  summary:
    "Show each attempt that finishes, once, by polling the attempt listing (no public callback URL needed); Ctrl-C stops",
  flags,
  examples: [
    "assess attempts watch --test 1001,1002",
    "assess attempts watch --exec 'jq -r .email >> finished.txt'",
    "assess attempts watch --forward http://127.0.0.1:3000/hooks/assess --interval 5m",
    "assess attempts watch --once --since 1d -o ndjson >> finished.ndjson   # from cron",
    "assess attempts watch --once --forward slack:https://hooks.slack.com/services/T000/B000/XXXX",
    "ASSESS_WEBHOOK_SECRET=whsec_… assess attempts watch --forward https://example.com/hooks/assess",
    "assess attempts watch --signing-secret whsec_old… --signing-secret whsec_new… --forward https://example.com/hooks/assess",
    "assess attempts watch --replay-dead-letters --since 2d --forward https://example.com/hooks/assess",
    "assess attempts watch --once --rules rules.yaml   # from cron: advance, shortlist, post",
  ],
  run,
});

async function run(ctx: Context, o: Options, _args: unknown, command?: Command): Promise<number> {
  if (o.exec !== undefined && o.forward !== undefined) {
    throw new UsageError("--exec and --forward cannot be used together", "Choose one of them.");
  }
  if (o.rules !== undefined && (o.exec !== undefined || o.forward !== undefined)) {
    throw new UsageError(
      `--rules cannot be used with ${o.exec !== undefined ? "--exec" : "--forward"}`,
      "Make it an action of a rule in the file: a rule of `test: any` with no `when` takes every attempt.",
    );
  }
  // Read and checked before anything is sent.
  const rules = o.rules === undefined ? undefined : readRules(o.rules);
  if (o.replayDeadLetters && o.exec === undefined && o.forward === undefined && rules === undefined) {
    throw new UsageError(
      "--replay-dead-letters sends the dead letters to --forward or --exec",
      "Give the one the letters go to now, e.g. --forward https://example.com/hooks/assess.",
    );
  }
  // With --rules, a secret signs what the rules forward to plain URLs.
  const plainForward = rules?.rules.some((rule) =>
    rule.actions.some((action) => action.kind === "forward" && action.destination.kind === "json"),
  );
  const signer = rules
    ? signerFor("a rule's forward", plainForward ? "json" : undefined, o.signingSecret, ctx.io.env)
    : signerFor("--forward", o.forward?.kind, o.signingSecret, ctx.io.env);
  const tests = [...new Set(o.test ?? [])].sort((a, b) => a - b);
  if (o.exec !== undefined || o.forward !== undefined || rules !== undefined)
    ctx.planWithReads(`Reading attempts to show what ${rules ? "--rules" : "--exec or --forward"} would do`);
  const client = await ctx.client();
  const path = watchStatePath(configDir(ctx.io.env), {
    profile: ctx.profileName,
    baseUrl: ctx.connection.targetBaseUrl("assess"),
    key: keyFingerprint(client.api.transport.options.apiKey),
    tests,
    rules: rules !== undefined,
  });
  await requireTests(client.api, tests);
  if (rules) {
    const missing = await missingTests(ctx, client.api, rules.rules);
    if (missing.length > 0) throw rulesError(rules.file, missing);
  }

  const keep = { key: o.execEnvKey === true, secret: o.execEnvSecret === true };
  const deliverer = rules
    ? rulesDeliverer(client, rules, { signer, forwardTimeoutMs: o.forwardTimeout, keep })
    : o.exec !== undefined
      ? execDeliverer(o.exec, keep)
      : o.forward &&
        forwardDeliverer(new Forwarder(o.forward, signer, o.forwardTimeout), reportOf(ctx, client));
  const unlock = lockWatchState(path);
  try {
    if (o.replayDeadLetters) return await replayDeadLetters(ctx, path, deliverer!, replayOptions(o, command));
    return await watch(ctx, client, o, path, tests, deliverer, rules && ((a) => concerns(rules.rules, a)));
  } finally {
    unlock();
    await deliverer?.close?.();
  }
}

async function watch(
  ctx: Context,
  client: Client,
  o: Options,
  path: string,
  tests: number[],
  deliverer: Deliverer | undefined,
  /** With --rules: whether some rule names the attempt's test (only those are checked). */
  ruled?: (attempt: TestAttempt) => boolean,
): Promise<number> {
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
    baseUrl: ctx.connection.targetBaseUrl("assess"),
    tests,
    polledUntil: toServiceTime(new Date(from.getTime() + OVERLAP_MS)),
    shown: {},
  };
  // A dry run shows what it would do and records nothing: the next real run does it all.
  const store = new WatchStore(path, state, saved !== undefined, ctx.dryRun);

  const out = watchOutput(ctx, o.once === true);
  const printer = new Printer(out, o.once === true);
  // While it waits for its next poll on a terminal, the status line says it is still polling.
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
      // The attempts of this poll not shown before, in the listing's order.
      const fresh: TestAttempt[] = [];
      try {
        for await (const page of attemptsOfPeriod(ctx, client.api, { start: from, end: until }, { tests })) {
          fresh.push(
            ...page.filter((attempt) => state.shown[String(attempt.testInvitationId)] === undefined),
          );
        }
      } catch (error) {
        interrupted = error instanceof InterruptedError;
        if (interrupted) break;
        const trouble = o.once ? undefined : transient(error);
        if (!trouble) throw error;
        const wait = backoff(o.interval, ++failures, trouble.retryAfterMs);
        ctx.warn(`${trouble.reason}; next poll in ${formatDuration(wait)}`);
        interrupted = await pause(wait, ctx.signal);
        if (interrupted) break;
        continue;
      }
      failures = 0;
      counts.polls++;

      const seenAt = toServiceTime(until);
      await printer.batch(fresh);
      let readerGone = false;
      const shownIds: string[] = [];
      const queued: PendingDelivery[] = [];
      for (const attempt of fresh) {
        if (!printer.batched) await printer.one(attempt);
        // Written to a reader that went away, an attempt reached no one: the next run shows it again. A failed
        // write comes back as an 'error' on a later tick: that tick comes before the attempt counts as shown.
        if (!deliverer) {
          await new Promise((resolve) => setImmediate(resolve));
          readerGone = out.closed;
          if (readerGone) break;
        } else if (ruled && !ruled(attempt)) {
          // No rule names its test: shown, and nothing to do.
        } else if (ctx.dryRun) {
          ctx.info(`[dry-run] would deliver attempt ${attempt.testInvitationId} (${deliverer.name})`);
        } else {
          const since = toServiceTime(new Date());
          queued.push({ attempt, since, tries: 0, ...(ruled ? { action: CHECK_RULES } : {}) });
        }
        shownIds.push(String(attempt.testInvitationId));
        counts.shown++;
      }
      // Shown and queued before any delivery starts: a crash from here on delivers them on the next run.
      if (shownIds.length > 0) store.record({ op: "shown", at: seenAt, ids: shownIds, queued });
      if (readerGone) {
        ctx.info("The reader of the output went away; stopping.");
        break;
      }
      if (deliverer && !ctx.dryRun) {
        const round = await deliverPending(ctx, deliverer, store, {
          all: counts.polls === 1,
          giveUpAfterMs: o.giveUpAfter,
          intervalMs: o.interval,
        });
        counts.delivered += round.delivered;
        counts.deadLettered += round.deadLettered;
        // Ctrl-C during a command or a POST: what is done is recorded, the rest waits for the next run.
        interrupted = ctx.signal.aborted;
        if (interrupted) break;
      }
      from = new Date(until.getTime() - OVERLAP_MS);
      store.record({ op: "polled", until: seenAt, pruneBefore: toServiceTime(from) });

      if (o.once) break;
      if (out.closed) {
        ctx.info("The reader of the output went away; stopping.");
        break;
      }
      idle.show(
        `Watching ${what}: last poll ${seenAt.slice(11, 19)}Z, next in ${formatDuration(o.interval)}; ` +
          `${counts.shown} shown${state.pending?.length ? `, ${state.pending.length} pending` : ""} (Ctrl-C stops)`,
      );
      interrupted = ctx.signal.aborted || (await pause(o.interval, ctx.signal));
      idle.clear();
      if (interrupted) break;
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
    const destination =
      o.rules !== undefined
        ? "--rules <file>"
        : o.exec !== undefined
          ? "--exec <command>"
          : "--forward <url>";
    ctx.hint(
      `each line holds the attempt (.attempt) and the last error: fix the receiver or the command, then \`assess attempts watch --replay-dead-letters ${destination}\` delivers each once more`,
    );
  }
  if (o.once && !interrupted) {
    if (counts.shown === 0 && pendingAtStart === 0 && ctx.io.stderr.isTTY) {
      const of = tests.length > 0 ? what : "any test";
      ctx.info(`No attempts of ${of} finished since ${toServiceTime(start)}.`);
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

/** --since counts for a replay only when given: by default every letter not replayed before is. */
function replayOptions(o: Options, command: Command | undefined) {
  const given = command?.getOptionValueSource("since") !== "default";
  return { sinceMs: given ? o.since : undefined, giveUpAfterMs: o.giveUpAfter, intervalMs: o.interval };
}

/** --since: a duration (`1h`, `2d`) or a date (`2026-11-01`, an ISO time), as milliseconds before now. */
function sinceMs(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text, FLAG);
  } catch {
    ms = Date.now() - parseDate(text, "start", FLAG).getTime();
  }
  if (ms < 1000) throw new UsageError(`${FLAG} must be at least 1s ago, got "${text}"`);
  return ms;
}

/**
 * What a Slack or Teams message adds to the listing's record: the attempt's report (the test's name, the score,
 * the report link). A report that cannot be read leaves the message without them; the delivery goes on.
 */
function reportOf(ctx: Context, client: Client) {
  return async (attempt: TestAttempt): Promise<Record<string, unknown>> => {
    try {
      return (await client.reports.get(Number(attempt.testInvitationId))) as Record<string, unknown>;
    } catch (error) {
      ctx.warn(
        `The report of attempt ${attempt.testInvitationId} could not be read (${(error as Error).message}): its message has no score or report link`,
      );
      return {};
    }
  };
}

/** Why a poll failed, when waiting may help: a rate limit, the service failing, or the network. */
function transient(error: unknown): { reason: string; retryAfterMs?: number } | undefined {
  if (error instanceof NetworkError) return { reason: `Cannot reach the service: ${error.message}` };
  if (!(error instanceof ApiError) || (error.status !== 429 && (error.status ?? 0) < 500)) return undefined;
  const reason = error.status === 429 ? "Rate limited" : `The service failed (HTTP ${error.status})`;
  return { reason, retryAfterMs: retryAfterMs(error.retryAfter, Date.now(), MAX_BACKOFF_MS) };
}

/**
 * As every list's output (`-o`, `--json`, the profile's `output`), except that piped with no format asked for
 * it is NDJSON, one attempt a line as it comes; and a watch that keeps running cannot end a JSON array.
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
 * Writes attempts as they are shown: tables (and the one JSON array of `--once -o json`) a poll at a time;
 * NDJSON, TSV and CSV one at a time through one `Output.list` kept open across polls, so TSV and CSV have one
 * header.
 */
class Printer {
  /** Whether attempts are written a poll at a time (`batch`) rather than one by one (`one`). */
  readonly batched: boolean;
  private listed?: Promise<number>;
  private next?: { rows: Row[]; written: () => void };
  private wake?: () => void;
  private ended = false;

  constructor(
    private readonly out: Output,
    private readonly once: boolean,
  ) {
    this.batched = out.format === "table" || out.format === "json";
  }

  /** `--once -o json` prints one JSON document whatever the poll found: `[]` when nothing is new. */
  async batch(attempts: TestAttempt[]): Promise<void> {
    const empty = this.once && this.out.format === "json";
    if (this.batched && (attempts.length > 0 || empty))
      await this.out.list(attempts as Row[], ATTEMPT_COLUMNS);
  }

  /** Returns once the attempt is written (the list asked for more), or once the list stopped (no reader). */
  async one(attempt: TestAttempt): Promise<void> {
    if (!this.listed) {
      this.listed = this.out.list(this.pages(), ATTEMPT_COLUMNS);
      // Seen by whoever awaits one or end; never an unhandled rejection meanwhile.
      this.listed.catch(() => undefined);
    }
    const written = new Promise<void>((resolve) => {
      this.next = { rows: [attempt as Row], written: resolve };
    });
    this.wake?.();
    await Promise.race([written, this.listed]);
  }

  async end(): Promise<void> {
    this.ended = true;
    this.wake?.();
    await this.listed;
  }

  private async *pages(): AsyncGenerator<Row[]> {
    for (;;) {
      while (!this.next && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
      const page = this.next;
      if (!page) return;
      this.next = undefined;
      yield page.rows;
      // The list came back for more: every row of the page is written.
      page.written();
    }
  }
}

function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
