/**
 * The config folder is a trust boundary (what runs, what is sent, what is remembered), so every file assess
 * writes under it goes through this module, with one rule:
 * - folders are made 0700 and refused when a symbolic link (but the config folder itself), writable by others
 *   or another user's;
 * - a file is written whole under a new name (created, never opened through anything there), then renamed
 *   over the old one, mode 0600; a file appended to is opened with O_NOFOLLOW.
 * A refusal is a usage error (exit 2) saying what to run.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "../errors.js";
import { shellWord } from "../escape.js";

/** Absent on Windows, where links need privileges. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

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

/** Writes `data` to `path` whole: a new file beside it, flushed, renamed over whatever is there. */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export function openForAppend(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
}

/** Whether a process of this id exists (EPERM: yes, another user's): for the ledger's and watch's locks. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
