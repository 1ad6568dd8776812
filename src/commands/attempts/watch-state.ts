/**
 * What `attempts watch` keeps between runs, per profile, service, account and test filter: the ids shown, the
 * time polled up to and the deliveries not yet done. It is a snapshot (`<name>.json`, replaced whole: a
 * temporary file renamed over it) and a journal beside it (`<name>.journal.ndjson`) that each change is
 * appended to, so a round writes what changed, not the whole state; the journal is folded into a new snapshot
 * when it outgrows it. A crash leaves the old snapshot or the new one, and a journal cut at its last line.
 * Given-up deliveries go to a dead-letter file beside, rotated at MAX_DEAD_LETTER_BYTES.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { TestAttempt } from "../../api/schemas.js";
import { ensurePrivateDir, openForAppend, takeLock, writePrivateFile } from "../../config/private.js";
import { CliError, UsageError } from "../../errors.js";
import { jsonText } from "../../escape.js";
import { isRecord } from "../../fields.js";
import { jsonOrUndefined } from "../../parse/json.js";

export interface WatchState {
  version: 1;
  baseUrl: string;
  tests: number[];
  /** Every attempt finished up to this time has been polled for. */
  polledUntil: string;
  /** Ids shown, each with the end of the poll that first returned it (for pruning). */
  shown: Record<string, string>;
  pending?: PendingDelivery[];
  /** The destinations that answered 410 Gone (by Deliverer.id), each with when: their deliveries are dead-lettered. */
  stopped?: Record<string, string>;
  /** The dead letters put back by --replay-dead-letters (`<testInvitationId>@<givenUpAt>`): never put back twice. */
  replayed?: string[];
  /** Which journal goes with this snapshot: a journal of another generation is already folded in. */
  generation?: number;
}

export interface PendingDelivery {
  attempt: TestAttempt;
  /** When it was first due: --give-up-after counts from here. */
  since: string;
  tries: number;
  lastError?: string;
  /** A running watch tries it again from this time on (a new run tries it at once). */
  nextAt?: string;
  /**
   * With --rules: what is to be done for the attempt, which with its id keys it: `rules` (read its report and
   * check the rules, which queues the actions that fire) or a rule's action (`advance#1.invite`).
   */
  action?: string;
  /** With --rules: the attempt's report as the rules were checked on, for the actions' messages and rows. */
  report?: Record<string, unknown>;
}

/** `<configDir>/watch/<profile>-<hash>.json`; another key (`key`: its fingerprint) is another watch. */
export function watchStatePath(
  configDir: string,
  target: { profile: string; baseUrl: string; key: string; tests: number[]; rules?: boolean },
): string {
  const what: unknown[] = [
    target.baseUrl.replace(/\/+$/, ""),
    target.key,
    [...target.tests].sort((a, b) => a - b),
  ];
  // A watch with --rules is a watch of its own: its attempts are checked against rules, not handed on.
  if (target.rules) what.push("rules");
  const hash = createHash("sha256").update(JSON.stringify(what)).digest("hex").slice(0, 16);
  return join(configDir, "watch", `${target.profile.replace(/[^\w.-]/g, "_")}-${hash}.json`);
}

/** A state larger is not one a watch wrote (a million attempts pending would be ~500 MB): it is not read. */
const MAX_STATE_BYTES = 256 * 1024 * 1024;

export function loadWatchState(path: string): WatchState | undefined {
  const text = readBounded(path, "watch state");
  if (text === undefined) return undefined;
  let state: unknown;
  try {
    if (text !== null) state = JSON.parse(text);
  } catch {
    // Not JSON: refused below.
  }
  if (!isState(state)) throw notOurs(path);
  const journal = readBounded(journalPath(path), "watch journal");
  if (journal === null) throw notOurs(journalPath(path));
  if (journal !== undefined && replay(state, journal, journalPath(path))) journaled.add(state);
  return state;
}

function notOurs(path: string): CliError {
  const what = path.endsWith(".json") ? "state" : "journal";
  return new CliError(`The watch ${what} ${path} is not one this version wrote`, {
    suggestion: "Delete it to start again from --since (attempts already shown may be shown again).",
  });
}

/**
 * The text of a file of the state, undefined when there is none; null for what is no file a watch writes (a
 * FIFO, a folder, larger than MAX_STATE_BYTES), which is then refused as not one this version wrote.
 */
function readBounded(path: string, what: string): string | null | undefined {
  try {
    // O_NONBLOCK: a FIFO in its place must not hang the watch before it is refused (a link is read, then replaced).
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const info = fstatSync(fd);
      return info.isFile() && info.size <= MAX_STATE_BYTES ? readFileSync(fd, "utf8") : null;
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw new CliError(`Cannot read the ${what} ${path}: ${(error as Error).message}`);
  }
}

/** `<name>.journal.ndjson`: the changes made since the snapshot was written, one JSON line each. */
export function journalPath(path: string): string {
  return `${path.replace(/\.json$/, "")}.journal.ndjson`;
}

/**
 * One change to the state, as the journal holds it. A pending delivery is named by its attempt, `since` and
 * `action`. A removal may queue what it led to (the actions of the rules an attempt's report satisfies), in the
 * same line: a crash leaves either the one or the others pending, never both, never neither.
 */
export type Change =
  | { op: "shown"; at: string; ids: string[]; queued: PendingDelivery[] }
  | {
      op: "tried";
      id: number;
      since: string;
      action?: string;
      tries: number;
      lastError?: string;
      nextAt?: string;
    }
  | { op: "removed"; id: number; since: string; action?: string; queued?: PendingDelivery[] }
  | { op: "polled"; until: string; pruneBefore: string }
  | { op: "stopped"; id: string; at: string }
  /** Dead letters put back: `replayed` is the whole new list of those marked; `resume` a stopped destination. */
  | { op: "replayed"; replayed: string[]; queued: PendingDelivery[]; resume?: string };

/** Applies a change to the state in memory. */
export function apply(state: WatchState, change: Change): void {
  const find = (id: number, since: string, action: string | undefined) =>
    (state.pending ?? []).findIndex(
      (entry) =>
        Number(entry.attempt.testInvitationId) === id && entry.since === since && entry.action === action,
    );
  switch (change.op) {
    case "shown":
      for (const id of change.ids) state.shown[id] = change.at;
      if (change.queued.length > 0) state.pending = [...(state.pending ?? []), ...change.queued];
      break;
    case "tried": {
      const entry = state.pending?.[find(change.id, change.since, change.action)];
      if (entry)
        Object.assign(entry, { tries: change.tries, lastError: change.lastError, nextAt: change.nextAt });
      break;
    }
    case "removed": {
      const index = find(change.id, change.since, change.action);
      if (index >= 0) state.pending!.splice(index, 1);
      if (change.queued?.length) state.pending = [...(state.pending ?? []), ...change.queued];
      break;
    }
    case "polled":
      state.polledUntil = change.until;
      pruneShown(state, new Date(change.pruneBefore));
      break;
    case "stopped":
      state.stopped = { ...state.stopped, [change.id]: change.at };
      break;
    case "replayed":
      state.replayed = change.replayed;
      state.pending = [...(state.pending ?? []), ...change.queued];
      if (change.resume !== undefined && state.stopped) delete state.stopped[change.resume];
      break;
  }
}

/** The states read whose journal goes with them: changes are appended to it (any other is replaced). */
const journaled = new WeakSet<WatchState>();

/**
 * Replays a journal of the snapshot's generation (its first line says which); a cut last line is dropped.
 * False when no more can be appended to it: of another generation (a crash between a snapshot and its new
 * journal), or cut short (a crash mid-append); the first change then folds the state into a new snapshot.
 */
function replay(state: WatchState, text: string, path: string): boolean {
  const lines = text.split("\n");
  const header = jsonOrUndefined(lines[0]!);
  if (!isRecord(header) || header.generation !== (state.generation ?? 0)) return false;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] === "") continue;
    const change = jsonOrUndefined(lines[i]!);
    if (isChange(change)) apply(state, change);
    // Only a crash mid-append leaves a line cut short, and only the last one.
    else if (i < lines.length - 1) throw notOurs(path);
  }
  return text.endsWith("\n");
}

function isPending(entry: unknown): entry is PendingDelivery {
  return (
    isRecord(entry) &&
    isRecord(entry.attempt) &&
    isTime(entry.since) &&
    typeof entry.tries === "number" &&
    isAction(entry.action) &&
    (entry.report === undefined || isRecord(entry.report))
  );
}

const isAction = (value: unknown) => value === undefined || typeof value === "string";

function isChange(value: unknown): value is Change {
  if (!isRecord(value)) return false;
  switch (value.op) {
    case "shown":
      return (
        isTime(value.at) &&
        Array.isArray(value.ids) &&
        value.ids.every((id) => typeof id === "string") &&
        Array.isArray(value.queued) &&
        value.queued.every(isPending)
      );
    case "tried":
      return (
        typeof value.id === "number" &&
        isTime(value.since) &&
        isAction(value.action) &&
        typeof value.tries === "number"
      );
    case "removed":
      return (
        typeof value.id === "number" &&
        isTime(value.since) &&
        isAction(value.action) &&
        (value.queued === undefined || (Array.isArray(value.queued) && value.queued.every(isPending)))
      );
    case "polled":
      return isTime(value.until) && isTime(value.pruneBefore);
    case "stopped":
      return typeof value.id === "string" && isTime(value.at);
    case "replayed":
      return (
        isStrings(value.replayed) &&
        Array.isArray(value.queued) &&
        value.queued.every(isPending) &&
        (value.resume === undefined || typeof value.resume === "string")
      );
    default:
      return false;
  }
}

const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

const isTime = (value: unknown) => typeof value === "string" && !Number.isNaN(Date.parse(value));

function isState(value: unknown): value is WatchState {
  return (
    isRecord(value) &&
    value.version === 1 &&
    isTime(value.polledUntil) &&
    isRecord(value.shown) &&
    (value.generation === undefined || typeof value.generation === "number") &&
    (value.stopped === undefined ||
      (isRecord(value.stopped) && Object.values(value.stopped).every(isTime))) &&
    (value.replayed === undefined || isStrings(value.replayed)) &&
    (value.pending === undefined || (Array.isArray(value.pending) && value.pending.every(isPending)))
  );
}

/** The state's folder, created private as the config folder above it. */
function ensureFolder(path: string): void {
  ensurePrivateDir(join(path, "..", ".."), join(path, ".."), "where attempts watch keeps its state");
}

/** A journal smaller than this is never folded into the snapshot (a small state's snapshot is smaller). */
const MIN_JOURNAL_BYTES = 1024 * 1024;

/**
 * The state of a run and its files: `record` applies a change and appends it to the journal; when the journal
 * outgrows the snapshot (and MIN_JOURNAL_BYTES), both are folded into a new snapshot. So the bytes written
 * stay within a few times the changes, whatever the state's size. A dry run changes the state in memory only.
 */
export class WatchStore {
  private snapshotBytes: number | undefined;
  private journalBytes = 0;

  constructor(
    readonly path: string,
    readonly state: WatchState,
    saved: boolean,
    private readonly dryRun: boolean,
  ) {
    // A loaded state's snapshot and journal are as large as they are; folded at the first change beyond them.
    // A state read without a journal to append to is written whole at its first change.
    // A snapshot read through a link (planted, or a copy elsewhere) is replaced by one of its own, as before.
    if (saved && journaled.has(state) && !isLink(path)) {
      this.snapshotBytes = sizeOf(path);
      this.journalBytes = sizeOf(journalPath(path));
    }
  }

  record(change: Change): void {
    apply(this.state, change);
    if (this.dryRun) return;
    if (this.snapshotBytes === undefined) {
      this.compact();
      return;
    }
    const line = `${JSON.stringify(change)}\n`;
    appendLine(journalPath(this.path), line, "watch journal");
    this.journalBytes += Buffer.byteLength(line);
    if (this.journalBytes > Math.max(MIN_JOURNAL_BYTES, this.snapshotBytes)) this.compact();
  }

  /** A new snapshot (the next generation), then an empty journal of that generation. */
  compact(): void {
    const generation = (this.state.generation ?? 0) + 1;
    this.state.generation = generation;
    const text = `${JSON.stringify(this.state)}\n`;
    ensureFolder(this.path);
    writeOrSay(this.path, text, "watch state");
    const header = `${JSON.stringify({ generation })}\n`;
    writeOrSay(journalPath(this.path), header, "watch journal");
    this.snapshotBytes = Buffer.byteLength(text);
    this.journalBytes = header.length;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function sizeOf(path: string): number {
  try {
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/** Writes a file of the state whole: a private temporary file beside it, flushed, then renamed (mode 0600). */
function writeOrSay(path: string, text: string, what: string): void {
  try {
    writePrivateFile(path, text);
  } catch (error) {
    throw new CliError(`Cannot write the ${what} ${path}: ${(error as Error).message}`, {
      suggestion: "Free some space or fix the folder's permissions, or set ASSESS_CONFIG_DIR.",
      cause: error,
    });
  }
}

/** Appends a line to a private file of the state (created 0600, never through a link). */
function appendLine(path: string, line: string, what: string): void {
  try {
    ensureFolder(path);
    const fd = openForAppend(path);
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new CliError(`Cannot write the ${what} ${path}: ${(error as Error).message}`, {
      suggestion: "Free some space or fix the folder's permissions; the delivery stays pending meanwhile.",
      cause: error,
    });
  }
}

export function deadLetterPath(path: string): string {
  return `${path.replace(/\.json$/, "")}.dead-letter.ndjson`;
}

/** The dead-letter file is rotated beyond this: the full one becomes `….1.ndjson` (an older one dropped). */
export const MAX_DEAD_LETTER_BYTES = 64 * 1024 * 1024;

/**
 * Appends one given-up delivery (created 0600: it holds candidates' data). A file that would grow beyond
 * MAX_DEAD_LETTER_BYTES is first renamed `<name>.dead-letter.1.ndjson`, over the one before: at most twice that.
 */
export function writeDeadLetter(path: string, entry: PendingDelivery, reason: string, to: string): void {
  const { attempt, since, tries, action, report } = entry;
  const line = `${jsonText({
    testInvitationId: attempt.testInvitationId,
    ...(action === undefined ? {} : { action, report }),
    givenUpAt: new Date().toISOString(),
    since,
    tries,
    error: reason,
    destination: to,
    attempt,
  })}\n`;
  try {
    ensureFolder(path);
    let fd = openForAppend(path);
    try {
      if (fstatSync(fd).size + Buffer.byteLength(line) > MAX_DEAD_LETTER_BYTES) {
        closeSync(fd);
        fd = -1;
        renameSync(path, rotatedDeadLetterPath(path));
        fd = openForAppend(path);
      }
      writeSync(fd, line);
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  } catch (error) {
    throw new CliError(`Cannot write the dead-letter file ${path}: ${(error as Error).message}`, {
      suggestion: "Free some space or fix the folder's permissions; the delivery stays pending meanwhile.",
      cause: error,
    });
  }
}

export function rotatedDeadLetterPath(path: string): string {
  return path.replace(/\.ndjson$/, ".1.ndjson");
}

/** Forgets the ids no later poll can return: first returned by a poll that ended before `from`. */
function pruneShown(state: WatchState, from: Date): void {
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
    busy: () =>
      new CliError(`Cannot lock the watch state ${lock}: it keeps changing hands`, {
        suggestion: "Another watch of the same tests is starting; try again in a moment.",
      }),
    failed: (file, error) =>
      new CliError(`Cannot lock the watch state ${file}: ${(error as Error).message}`, { cause: error }),
  });
}
