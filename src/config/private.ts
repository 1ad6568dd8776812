/**
 * The config folder is a trust boundary (what runs, what is sent, what is remembered), so every file assess
 * writes under it goes through this module, with one rule:
 * - folders are made 0700 and refused when a symbolic link (but the config folder itself), writable by others
 *   or another user's;
 * - a file is written whole under a new name (created, never opened through anything there), then renamed
 *   over the old one, mode 0600 (`NewFile`, src/new-file.ts, which also writes the files of --out: src/files.ts);
 *   a file appended to is opened with O_NOFOLLOW.
 * A refusal is a usage error (exit 2) saying what to run.
 */

import { randomBytes } from "node:crypto";
import {
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "../errors.js";
import { shellWord } from "../escape.js";
import { NewFile, NOFOLLOW } from "../new-file.js";

/** What is wrong with the folder `dir`, or undefined when it is fine or not there yet. */
export function privateDirProblem(dir: string, linkAllowed = false): string | undefined {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(dir);
    if (info.isSymbolicLink()) {
      if (!linkAllowed) return "is a symbolic link; assess keeps its files only in a folder of its own";
      info = statSync(dir);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
  // A file in its place: making the folder or a file in it fails, and the caller says so.
  if (!info.isDirectory()) return undefined;
  // Windows has no such mode bits (its folders show as 0666 or 0777 here).
  if (process.platform === "win32") return undefined;
  if ((info.mode & 0o022) !== 0) {
    return `can be written by other users (mode ${(info.mode & 0o777).toString(8).padStart(4, "0")})`;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) return `belongs to another user (uid ${info.uid})`;
  return undefined;
}

export function checkPrivateDir(dir: string, what: string, linkAllowed = false): void {
  const problem = privateDirProblem(dir, linkAllowed);
  if (problem === undefined) return;
  throw new UsageError(
    `${dir} (${what}) ${problem}`,
    problem.startsWith("can be written")
      ? `Run \`chmod 700 ${shellWord(dir)}\` if it is yours, or point ASSESS_CONFIG_DIR at a folder of your own; nothing was sent.`
      : "Put a folder of your own in its place, or point ASSESS_CONFIG_DIR at one; nothing was sent.",
  );
}

/** Makes `dir` (0700) and the folders above it up to `root` (the config folder), then checks them all. */
export function ensurePrivateDir(root: string, dir: string, what: string): void {
  checkPrivateDir(root, "the config folder", true);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A link to nowhere in the folder's place: say so rather than ENOENT.
    checkPrivateDir(dir, what);
    throw error;
  }
  checkPrivateDir(root, "the config folder", true);
  for (let folder = dir; folder.length > root.length && folder !== dirname(folder); folder = dirname(folder))
    checkPrivateDir(folder, what);
}

/**
 * Writes `data` to `path` whole (a `NewFile` renamed over whatever is there); on a failure nothing is left.
 * `durable`: flushed to disk before the rename (see NewFile.commit).
 */
export function writePrivateFile(path: string, data: string | Uint8Array, { durable = true } = {}): void {
  const file = new NewFile(path);
  try {
    file.write(data);
    file.commit(undefined, durable);
  } catch (error) {
    file.discard();
    throw error;
  }
}

/** `readable`: also open for reading (what is there: whether its last line was cut short). */
export function openForAppend(path: string, readable = false): number {
  const access = readable ? constants.O_RDWR : constants.O_WRONLY;
  return openSync(path, access | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
}

/** Whether a process of this id exists (EPERM: yes, another user's). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What `takeLock` throws, in the words of the group that takes the lock. */
export interface LockMessages {
  /** A live process (`pid`) holds the lock. */
  held(pid: number): Error;
  /** The lock kept changing hands. */
  busy(): Error;
  /** `file` could not be made. */
  failed(file: string, error: unknown): Error;
}

/** The locks this process holds: one holding its id but not listed here was left by an earlier process of that id. */
const heldHere = new Set<string>();

/**
 * Takes `lock`, a file holding this process's id, for one writer at a time (a bulk run's ledger, a watch's
 * state). A lock whose process is gone is taken over by one process only, under an exclusive
 * `<lock>.takeover`, and replaced by a rename (it never stops existing). Returns the release function.
 */
export function takeLock(lock: string, messages: LockMessages): () => void {
  const live = (pid: number | undefined) =>
    pid !== undefined && (pid === process.pid ? heldHere.has(lock) : processAlive(pid));
  const taken = () => {
    heldHere.add(lock);
    return () => {
      if (heldHere.delete(lock) && lockHolder(lock) === process.pid) rmSync(lock, { force: true });
    };
  };
  for (let tries = 0; tries < 50; tries++) {
    if (createExclusive(lock, messages)) return taken();
    const pid = lockHolder(lock);
    if (live(pid)) throw messages.held(pid!);
    // No id in it yet: being written this instant, unless it has been empty for a while (a crash).
    if (pid === undefined && ageMs(lock) < 2000) {
      sleepSync(20);
      continue;
    }
    const takeover = `${lock}.takeover`;
    if (createExclusive(takeover, messages)) {
      try {
        const again = lockHolder(lock);
        if (again === pid || (again !== undefined && !live(again))) {
          writeLock(lock, messages);
          return taken();
        }
      } finally {
        rmSync(takeover, { force: true });
      }
      continue;
    }
    const other = lockHolder(takeover);
    if (other !== undefined && !live(other)) {
      if (!clearTakeover(takeover, other)) throw messages.busy();
      continue;
    }
    sleepSync(20);
  }
  throw messages.busy();
}

/**
 * Runs `work` holding `lock` (see `takeLock`), for holds of milliseconds (an append, a rotation): while another
 * process holds it, waits for it (up to ~10 s), then throws `busy()`.
 */
export function whileLocked<T>(
  lock: string,
  messages: Pick<LockMessages, "busy" | "failed">,
  work: () => T,
): T {
  const busy = new Error("busy");
  for (let tries = 0; ; tries++) {
    let release: () => void;
    try {
      release = takeLock(lock, { held: () => busy, busy: () => busy, failed: messages.failed });
    } catch (error) {
      if (error !== busy) throw error;
      if (tries >= 1000) throw messages.busy();
      sleepSync(10);
      continue;
    }
    try {
      return work();
    } finally {
      release();
    }
  }
}

/**
 * Removes a takeover left by a process killed while it took over a lock (`dead` holds it). It is moved aside
 * first, in one step, and removed only when what was moved is still that dead process's: a live takeover made
 * meanwhile by another process is put back where it was (a link, which never replaces a file). False when it
 * could not be put back because a third process made one in its place: then the lock is busy.
 */
function clearTakeover(takeover: string, dead: number): boolean {
  const aside = `${takeover}.${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    renameSync(takeover, aside);
  } catch {
    return true; // Gone already: another process cleared it.
  }
  try {
    if (lockHolder(aside) === dead) return true;
    linkSync(aside, takeover);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Creates `file` holding this process's id; false when it exists. */
function createExclusive(file: string, messages: LockMessages): boolean {
  try {
    // "wx": O_CREAT | O_EXCL, which fails on anything already there, a link included.
    writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw messages.failed(file, error);
  }
}

/** The lock, holding this process's id, put in place in one step. */
function writeLock(lock: string, messages: LockMessages): void {
  try {
    writePrivateFile(lock, String(process.pid));
  } catch (error) {
    throw messages.failed(lock, error);
  }
}

function lockHolder(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
