/**
 * What `attempts watch` keeps between runs, one JSON file per profile, service, account and test filter: the
 * ids shown, the time polled up to and the deliveries not yet done. It is replaced whole (a temporary file
 * renamed over it), so a crash leaves the old state or the new one. Given-up deliveries go to a file beside.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { TestAttempt } from "../../api/schemas.js";
import { ensurePrivateDir, openForAppend, takeLock, writePrivateFile } from "../../config/private.js";
import { CliError, UsageError } from "../../errors.js";
import { jsonText } from "../../escape.js";
import { isRecord } from "../../fields.js";

export interface WatchState {
  version: 1;
  baseUrl: string;
  tests: number[];
  /** Every attempt finished up to this time has been polled for. */
  polledUntil: string;
  /** Ids shown, each with the end of the poll that first returned it (for pruning). */
  shown: Record<string, string>;
  pending?: PendingDelivery[];
}

export interface PendingDelivery {
  attempt: TestAttempt;
  /** When it was first due: --give-up-after counts from here. */
  since: string;
  tries: number;
  lastError?: string;
  /** A running watch tries it again from this time on (a new run tries it at once). */
  nextAt?: string;
}

/** `<configDir>/watch/<profile>-<hash>.json`; another key (`key`: its fingerprint) is another watch. */
export function watchStatePath(
  configDir: string,
  target: { profile: string; baseUrl: string; key: string; tests: number[] },
): string {
  const what = [target.baseUrl.replace(/\/+$/, ""), target.key, [...target.tests].sort((a, b) => a - b)];
  const hash = createHash("sha256").update(JSON.stringify(what)).digest("hex").slice(0, 16);
  return join(configDir, "watch", `${target.profile.replace(/[^\w.-]/g, "_")}-${hash}.json`);
}

/** A state larger is not one a watch wrote (a million attempts pending would be ~500 MB): it is not read. */
const MAX_STATE_BYTES = 256 * 1024 * 1024;

export function loadWatchState(path: string): WatchState | undefined {
  let text: string | undefined;
  try {
    // O_NONBLOCK: a FIFO in its place must not hang the watch before it is refused (a link is read, then replaced).
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const info = fstatSync(fd);
      if (info.isFile() && info.size <= MAX_STATE_BYTES) text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw new CliError(`Cannot read the watch state ${path}: ${(error as Error).message}`);
  }
  let state: unknown;
  try {
    if (text !== undefined) state = JSON.parse(text);
  } catch {
    // Not JSON: refused below.
  }
  if (!isState(state)) {
    throw new CliError(`The watch state ${path} is not one this version wrote`, {
      suggestion: "Delete it to start again from --since (attempts already shown may be shown again).",
    });
  }
  return state;
}

const isTime = (value: unknown) => typeof value === "string" && !Number.isNaN(Date.parse(value));

function isState(value: unknown): value is WatchState {
  const isPending = (entry: unknown) =>
    isRecord(entry) && isRecord(entry.attempt) && isTime(entry.since) && typeof entry.tries === "number";
  return (
    isRecord(value) &&
    value.version === 1 &&
    isTime(value.polledUntil) &&
    isRecord(value.shown) &&
    (value.pending === undefined || (Array.isArray(value.pending) && value.pending.every(isPending)))
  );
}

/** The state's folder, created private as the config folder above it. */
function ensureFolder(path: string): void {
  ensurePrivateDir(join(path, "..", ".."), join(path, ".."), "where attempts watch keeps its state");
}

/** Writes the state whole: a private temporary file beside it, flushed, then renamed over it (mode 0600). */
export function saveWatchState(path: string, state: WatchState): void {
  ensureFolder(path);
  try {
    writePrivateFile(path, `${JSON.stringify(state)}\n`);
  } catch (error) {
    throw new CliError(`Cannot write the watch state ${path}: ${(error as Error).message}`, {
      suggestion: "Free some space or fix the folder's permissions, or set ASSESS_CONFIG_DIR.",
      cause: error,
    });
  }
}

export function deadLetterPath(path: string): string {
  return `${path.replace(/\.json$/, "")}.dead-letter.ndjson`;
}

/** Appends one given-up delivery (created 0600: it holds candidates' data). */
export function writeDeadLetter(path: string, entry: PendingDelivery, reason: string, to: string): void {
  const { attempt, since, tries } = entry;
  const line = {
    testInvitationId: attempt.testInvitationId,
    givenUpAt: new Date().toISOString(),
    since,
    tries,
    error: reason,
    destination: to,
    attempt,
  };
  try {
    ensureFolder(path);
    const fd = openForAppend(path);
    try {
      writeSync(fd, `${jsonText(line)}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new CliError(`Cannot write the dead-letter file ${path}: ${(error as Error).message}`, {
      suggestion: "Free some space or fix the folder's permissions; the delivery stays pending meanwhile.",
      cause: error,
    });
  }
}

/** Forgets the ids no later poll can return: first returned by a poll that ended before `from`. */
export function pruneShown(state: WatchState, from: Date): void {
  for (const [id, seenAt] of Object.entries(state.shown)) {
    if (Date.parse(seenAt) < from.getTime()) delete state.shown[id];
  }
}

/**
 * Takes `<state>.lock` while the watch runs: two watches of one state would each deliver the same attempt.
 * Returns the release function.
 */
export function lockWatchState(path: string): () => void {
  const lock = `${path}.lock`;
  ensureFolder(path);
  return takeLock(lock, {
    held: (pid) =>
      new UsageError(
        `Another \`assess attempts watch\` of the same tests is running (process ${pid})`,
        `Stop it first, or watch other tests. If no such watch runs, delete ${lock}.`,
      ),
    stuck: (takeover) =>
      new UsageError(
        `A watch stopped while taking over the lock ${lock}`,
        `If no \`assess attempts watch\` of these tests runs, delete ${takeover}.`,
      ),
    busy: () =>
      new CliError(`Cannot lock the watch state ${lock}: it keeps changing hands`, {
        suggestion: "Another watch of the same tests is starting; try again in a moment.",
      }),
    failed: (file, error) =>
      new CliError(`Cannot lock the watch state ${file}: ${(error as Error).message}`, { cause: error }),
  });
}
