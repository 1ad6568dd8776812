/**
 * The config folder is a trust boundary: what is in it decides what runs (the code cache), what is sent (the
 * key, the ledgers) and what is remembered (watch state). Whoever could plant a link or a file there could make
 * assess write through the link, read their file, or run their code. So every file assess writes under it goes
 * through this module, with one rule:
 *
 * - its folders are made 0700, and refused when they are a symbolic link (the config folder itself may be one,
 *   as dotfiles often are), when other users can write to them, or when another user owns them;
 * - a file is written whole under a new name (`wx`: created, never opened through anything already there),
 *   then renamed over the old one (a rename replaces a link, never writes its target), mode 0600;
 * - a file appended to (`callbacks listen --log`, anywhere) is opened with O_NOFOLLOW: never through a link.
 *
 * config.json is the one file written by a library, conf (config/store.ts): in a folder checked here, and
 * refused when it is a link, so that conf's writer renames a new file over it too.
 *
 * A refusal is a usage error (exit 2) with the `chmod 700` to run.
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
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "../errors.js";
import { shellWord } from "../files.js";

/** Absent on Windows, where links need privileges. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * What is wrong with the folder `dir` (a link, writable by others, owned by another user), or undefined when
 * it is fine or not there yet. `linkAllowed` for the config folder itself, checked through the link.
 */
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

/** Refuses the folder (exit 2) when `privateDirProblem` finds something; `what` says what it holds. */
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

/**
 * Makes `dir` (0700) and every folder above it up to `root` (the config folder) that is missing, then checks
 * them all: the config folder through a link if it is one, the folders below it as they are.
 */
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
  for (
    let folder = dir;
    folder.length > root.length && folder !== dirname(folder);
    folder = dirname(folder)
  ) {
    checkPrivateDir(folder, what);
  }
}

/**
 * Writes `data` to `path` whole: a new file beside it (`wx`, 0600), flushed, renamed over whatever is there (a
 * link is replaced, its target left alone). The caller made the folder (`ensurePrivateDir`).
 */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    try {
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
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

/** Opens `path` to append to it (created 0600), never through a link: ELOOP when it is one. */
export function openForAppend(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
}
