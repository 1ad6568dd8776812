/**
 * At-least-once delivery for `attempts watch`: an attempt is delivered only when --exec exited 0 or --forward
 * got a 2xx. Until then it stays pending in the watch state, tried again by every later poll and run, oldest
 * first, with backoff; after --give-up-after, or at once when it cannot even start, it is dead-lettered. The
 * state is saved after every outcome: Ctrl-C or a crash never repeats a recorded delivery nor loses another.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { backoffMs } from "../../api/retry.js";
import type { TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { describeDestination, type Forwarder, retryable } from "../../core/forward.js";
import { SECRET_ENV, webhookId } from "../../core/signing.js";
import { jsonText } from "../../escape.js";
import { formatDuration, toServiceTime } from "../../parse/dates.js";
import { deadLetterPath, type PendingDelivery, type WatchStore, writeDeadLetter } from "./watch-state.js";

/** Backing off stops growing here (or at --interval, when that is longer). */
export const MAX_BACKOFF_MS = 15 * 60_000;
/** Quick tries of one forward within a round; longer waits are left to the next round. */
const QUICK_TRIES = 3;
const QUICK_WAIT_MAX_MS = 5_000;

export interface Outcome {
  delivered: boolean;
  /** Delivered, and this follows from it (the actions of the rules an attempt satisfies): queued in the same line. */
  queued?: PendingDelivery[];
  error?: string;
  /** The delivery cannot start at all (trying again cannot help): dead-lettered at once. */
  fatal?: boolean;
  retryAfterMs?: number;
  /** The destination answered 410 Gone: it is stopped (./watch-state.ts `stopped`). */
  gone?: boolean;
}

export interface Deliverer {
  /** What the messages call it: `--exec`, `--forward to <url>`. */
  readonly name: string;
  /** Which destination a 410 Gone stops: a hash of the whole URL (a Slack URL is a credential: never kept). */
  readonly id: string;
  /** After a failure the rest of the round waits (a receiver that is down fails them all, in order). */
  readonly stopOnFailure: boolean;
  deliver(ctx: Context, entry: PendingDelivery): Promise<Outcome>;
  /** What messages and dead letters call one delivery, when not `name` (a rule's action: `rule advance: invite to test 1002`). */
  describe?(entry: PendingDelivery): string;
  close?(): Promise<void>;
}

/** The secrets a --exec child gets only when asked: `--exec-env-key`, `--exec-env-secret`. */
export interface KeptSecrets {
  key: boolean;
  secret: boolean;
}

/**
 * Runs `command` through the shell with the attempt as JSON on stdin and its ids in ASSESS_TEST_INVITATION_ID
 * and ASSESS_TEST_ID; its output goes to stderr. The child gets neither ASSESS_API_KEY nor the signing secret
 * (ASSESS_WEBHOOK_SECRET) unless asked.
 */
export function execDeliverer(command: string, keep: KeptSecrets): Deliverer {
  return {
    name: "--exec",
    id: "exec",
    stopOnFailure: false,
    deliver: (ctx, { attempt }) => runCommand(ctx, { command, keep, attempt, stdin: jsonText(attempt) }),
  };
}

/** One run of a command for an attempt: --exec's, or a rule's `exec` action's (bounded in time and output). */
export interface CommandRun {
  /** A string runs through the shell; a list is the program and its arguments, with no shell. */
  command: string | string[];
  keep: KeptSecrets;
  attempt: TestAttempt;
  /** Written to its stdin, then a newline. */
  stdin: string;
  /** More variables for its environment (the rule's name and the run's key). */
  env?: Record<string, string>;
  /** Killed (SIGKILL) after this long: a failure, tried again as any. */
  timeoutMs?: number;
  /** Its output shown on stderr up to this many bytes; the rest is counted and dropped. */
  maxOutputBytes?: number;
}

/**
 * Runs the command with the attempt as JSON on stdin and its ids in ASSESS_TEST_INVITATION_ID and
 * ASSESS_TEST_ID (digits only: no text of the service reaches its command line or a shell); done when it exits 0.
 */
export async function runCommand(ctx: Context, run: CommandRun): Promise<Outcome> {
  const { command, keep, attempt } = run;
  const env: NodeJS.ProcessEnv = { ...ctx.io.env, ...run.env };
  if (!keep.key) delete env.ASSESS_API_KEY;
  if (!keep.secret) delete env[SECRET_ENV];
  const ids = { ASSESS_TEST_INVITATION_ID: attempt.testInvitationId, ASSESS_TEST_ID: attempt.testId ?? "" };
  for (const [name, value] of Object.entries(ids)) {
    if (!/^\d*$/.test(String(value))) {
      return { delivered: false, fatal: true, error: `${name} cannot carry ${jsonText(value)}` };
    }
    env[name] = String(value);
  }
  return new Promise((resolve) => {
    const cannotRun = (error: Error) => {
      const code = (error as { code?: string }).code;
      // Node refuses the values before any process starts (a NUL in the environment): it never will.
      const fatal = code === "ERR_INVALID_ARG_VALUE" || code === "ERR_INVALID_ARG_TYPE";
      resolve({ delivered: false, fatal, error: `could not run: ${error.message}` });
    };
    let child: ChildProcessWithoutNullStreams;
    try {
      // A bounded command runs in a process group of its own: at its timeout the group is killed, so what it
      // started in the background (holding its output open) goes too.
      const detached = run.timeoutMs !== undefined;
      child =
        typeof command === "string"
          ? spawn(command, { shell: true, env, detached })
          : spawn(command[0]!, command.slice(1), { shell: false, env, detached });
    } catch (error) {
      return cannotRun(error as Error);
    }
    let shown = 0;
    let dropped = 0;
    const relay = (chunk: Buffer) => {
      const room = Math.max(0, (run.maxOutputBytes ?? Number.POSITIVE_INFINITY) - shown);
      if (room >= chunk.length) {
        shown += chunk.length;
        ctx.io.stderr.write(chunk);
        return;
      }
      if (room > 0) ctx.io.stderr.write(chunk.subarray(0, room));
      shown += room;
      dropped += chunk.length - room;
    };
    child.stdout.on("data", relay);
    child.stderr.on("data", relay);
    let timedOut = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer =
      run.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup();
          }, run.timeoutMs);
    // Out of the terminal's process group, it hears no Ctrl-C: the watch stops it.
    const stop = () => (run.timeoutMs === undefined ? undefined : killGroup());
    ctx.signal.addEventListener("abort", stop, { once: true });
    // A command that does not read its stdin closes it early: not a failure of the command.
    child.stdin.on("error", () => undefined);
    child.stdin.end(`${run.stdin}\n`);
    child.on("error", (error) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", stop);
      cannotRun(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", stop);
      if (dropped > 0) ctx.warn(`The command's output went on for ${dropped} more bytes: not shown`);
      if (timedOut)
        resolve({ delivered: false, error: `still running after ${formatDuration(run.timeoutMs!)}: killed` });
      else if (signal) resolve({ delivered: false, error: `killed by ${signal}` });
      else if (code !== 0) resolve({ delivered: false, error: `exited with ${code}` });
      else resolve({ delivered: true });
    });
  });
}

/**
 * POSTs the attempt (or its message, for Slack and Teams) with a few quick tries. A message is made of the
 * attempt and what `details` adds (its report: the test's name, the score, the report link).
 */
export function forwardDeliverer(
  forwarder: Forwarder,
  details?: (attempt: TestAttempt) => Promise<Record<string, unknown>>,
  /** What the webhook id says happened, with the attempt's id: `finished`, or a rule's action's key. */
  event: (entry: PendingDelivery) => string = () => "finished",
): Deliverer {
  const name = `--forward to ${describeDestination(forwarder.destination)}`;
  return {
    name,
    id: createHash("sha256")
      .update(`${forwarder.destination.kind}:${forwarder.destination.url}`)
      .digest("hex")
      .slice(0, 16),
    stopOnFailure: true,
    close: () => forwarder.close(),
    async deliver(ctx, entry) {
      const { attempt } = entry;
      const message = forwarder.destination.kind !== "json" && details !== undefined;
      const delivery = {
        body: jsonText(attempt),
        contentType: "application/json",
        record: message ? { ...(await details(attempt)), ...attempt } : (attempt as Record<string, unknown>),
        webhookId: webhookId(attempt.testInvitationId, event(entry)),
      };
      for (let tried = 1; ; tried++) {
        const outcome = await forwarder.tryOnce(delivery, ctx.signal);
        if (outcome.error === undefined) return { delivered: true };
        if (outcome.status === 410) return { delivered: false, gone: true, error: "HTTP 410 Gone" };
        if (ctx.signal.aborted) return { delivered: false, error: outcome.error };
        const wait = outcome.retryAfterMs ?? Math.max(500, backoffMs(tried + 1));
        if (tried >= QUICK_TRIES || !retryable(outcome) || wait > QUICK_WAIT_MAX_MS) {
          return { delivered: false, error: outcome.error, retryAfterMs: outcome.retryAfterMs };
        }
        ctx.warn(
          `${name} of attempt ${attempt.testInvitationId}: ${outcome.error}; trying again in ${formatDuration(wait)}`,
        );
        if (await pause(wait, ctx.signal)) return { delivered: false, error: outcome.error };
      }
    },
  };
}

/** `intervalMs` doubled `doublings` times, up to MAX_BACKOFF_MS (or the interval), at least retryAfterMs. */
export function backoff(intervalMs: number, doublings: number, retryAfterMs = 0): number {
  return Math.max(Math.min(intervalMs * 2 ** doublings, Math.max(intervalMs, MAX_BACKOFF_MS)), retryAfterMs);
}

/** Tries the pending deliveries in order; each outcome is recorded (a line of the journal) before the next starts. */
export async function deliverPending(
  ctx: Context,
  deliverer: Deliverer,
  store: WatchStore,
  o: {
    /** Try every pending delivery now, whatever its backoff (the first round of a run). */
    all: boolean;
    giveUpAfterMs: number;
    /** The first retry's wait, doubling after each failure. */
    intervalMs: number;
  },
): Promise<{ delivered: number; deadLettered: number }> {
  const result = { delivered: 0, deadLettered: 0 };
  if (store.state.stopped?.[deliverer.id]) {
    result.deadLettered = deadLetterStopped(ctx, deliverer, store);
    return result;
  }
  // What a delivery queues (a rule's actions) is tried in the same round, after what was pending before it.
  const round = [...(store.state.pending ?? [])];
  for (let i = 0; i < round.length; i++) {
    const entry = round[i]!;
    if (ctx.signal.aborted) break;
    if (!o.all && entry.nextAt !== undefined && Date.parse(entry.nextAt) > Date.now()) {
      if (deliverer.stopOnFailure) break;
      continue;
    }
    const id = entry.attempt.testInvitationId;
    const named = {
      id: Number(id),
      since: entry.since,
      ...(entry.action === undefined ? {} : { action: entry.action }),
    };
    const name = deliverer.describe?.(entry) ?? deliverer.name;
    const outcome = await deliverer.deliver(ctx, entry);
    if (outcome.delivered) {
      const queued = outcome.queued ?? [];
      store.record({ op: "removed", ...named, ...(queued.length > 0 ? { queued } : {}) });
      round.push(...queued);
      result.delivered++;
      continue;
    }
    // Ctrl-C cut the try short: not a failure of the receiver, and not counted.
    if (ctx.signal.aborted) break;
    const now = Date.now();
    const wait = backoff(o.intervalMs, entry.tries, outcome.retryAfterMs);
    store.record({
      op: "tried",
      ...named,
      tries: entry.tries + 1,
      lastError: outcome.error,
      nextAt: toServiceTime(new Date(now + wait)),
    });
    if (outcome.gone) {
      store.record({ op: "stopped", id: deliverer.id, at: toServiceTime(new Date(now)) });
      result.deadLettered += deadLetterStopped(ctx, deliverer, store);
      break;
    }
    const age = now - Date.parse(entry.since);
    if (outcome.fatal || age >= o.giveUpAfterMs) {
      const reason = outcome.fatal
        ? (outcome.error ?? "cannot be delivered")
        : `${outcome.error} (given up after ${tries(entry)} over ${formatDuration(age)})`;
      const file = deadLetterPath(store.path);
      writeDeadLetter(file, entry, reason, name);
      store.record({ op: "removed", ...named });
      result.deadLettered++;
      ctx.warn(`${name} of attempt ${id}: ${reason}; given up, written to ${file}`);
    } else {
      ctx.warn(
        `${name} of attempt ${id} failed (${outcome.error}); pending, tried again ${entry.tries === 1 ? "on the next poll or run" : `after ${formatDuration(wait)} or on the next run`}`,
      );
    }
    if (deliverer.stopOnFailure && !outcome.fatal) break;
  }
  return result;
}

/** The deliverers whose stop was told in this run: once is enough. */
const toldStopped = new WeakSet<Deliverer>();

/**
 * A destination that answered 410 Gone is stopped: every delivery pending for it is dead-lettered at once,
 * untried, now and in later rounds and runs (the state keeps the stop) until --replay-dead-letters to it.
 */
function deadLetterStopped(ctx: Context, deliverer: Deliverer, store: WatchStore): number {
  const at = store.state.stopped![deliverer.id]!;
  const reason = `HTTP 410 Gone at ${at}: the destination is stopped`;
  const file = deadLetterPath(store.path);
  const entries = [...(store.state.pending ?? [])];
  for (const entry of entries) {
    writeDeadLetter(file, entry, reason, deliverer.describe?.(entry) ?? deliverer.name);
    store.record({
      op: "removed",
      id: Number(entry.attempt.testInvitationId),
      since: entry.since,
      ...(entry.action === undefined ? {} : { action: entry.action }),
    });
  }
  if (!toldStopped.has(deliverer)) {
    toldStopped.add(deliverer);
    const n = entries.length;
    ctx.warn(
      `${deliverer.name} answered 410 Gone (${at}): stopped; ${n} deliver${n === 1 ? "y" : "ies"} written to ${file} untried, as every later one will be (this run and the next ones) until --replay-dead-letters sends them there again`,
    );
  }
  return entries.length;
}

function tries({ tries }: PendingDelivery): string {
  return `${tries} ${tries === 1 ? "try" : "tries"}`;
}

/** `attempt 50123 (ECONNREFUSED, 2 tries)`, for the summary of what is still pending. */
export function describePending(entries: PendingDelivery[]): string {
  return entries
    .map(
      (e) =>
        `attempt ${e.attempt.testInvitationId}${e.action ? ` (${e.action})` : ""} (${e.lastError ?? "not tried yet"}, ${tries(e)})`,
    )
    .join(", ");
}

/** Waits `ms`; true when Ctrl-C came first. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return false;
  } catch {
    return true;
  }
}
