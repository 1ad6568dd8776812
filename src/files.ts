/**
 * Files assess writes for the user (`reports pdf --out`, the rejects file of bulk runs): checked before any
 * request goes out, never written through a symbolic link, never clobbering a file unless `--force`, and never
 * seen half written. One rule for every such file, so they all refuse the same things with the same words.
 */

import { randomBytes } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readlinkSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { CliError, UsageError } from "./errors.js";

export interface TargetOptions {
  /** The option that named the file (`--out`, `--rejects`), for messages. */
  option: string;
  /** `--force`: replace an existing file, or a link (the link itself: its target is never written). */
  force: boolean;
  /** What the file is, for messages: "The rejects file". */
  what?: string;
}

/**
 * Checks, before anything is sent or downloaded, that `path` can be written: its folder exists, and unless
 * `force` nothing is there yet (a file, or a link to anything). A folder is never replaced. Usage error (exit 2).
 */
export function checkTarget(path: string, options: TargetOptions): void {
  try {
    check(path, options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(
      `${options.option} ${path}: cannot check it (${code})`,
      `Check the permissions of its folder, or choose another ${options.option}; nothing was sent.`,
    );
  }
}

function check(path: string, { option, force, what }: TargetOptions): void {
  const named = what ? `${what} ${path}` : path;
  const folder = dirname(path);
  const folderInfo = statOrUndefined(() => statSync(folder));
  if (folderInfo === undefined) {
    throw new UsageError(
      `${option} ${path}: the folder ${folder} does not exist`,
      `Create it first (mkdir -p ${shellWord(folder)}), or choose another ${option}; nothing was sent.`,
    );
  }
  if (!folderInfo.isDirectory()) {
    throw new UsageError(
      `${option} ${path}: ${folder} is not a folder`,
      `Choose another ${option}; nothing was sent.`,
    );
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new UsageError(
      `${option} ${path}: the folder ${folder} is not writable`,
      `Choose a folder you can write to for ${option}; nothing was sent.`,
    );
  }
  const info = statOrUndefined(() => lstatSync(path));
  if (info === undefined) return;
  if (info.isDirectory()) {
    throw new UsageError(
      `${option} ${path} is a folder`,
      `Give the name of a file, in that folder or elsewhere; nothing was sent.`,
    );
  }
  if (force) return;
  if (info.isSymbolicLink()) {
    throw new UsageError(
      `${named} is a symbolic link (to ${linkTarget(path)}); assess does not write through links`,
      `Choose another ${option}, or pass --force to replace the link itself (its target is left alone); nothing was sent.`,
    );
  }
  throw new UsageError(
    `${named} already exists`,
    `Pass --force to overwrite it, or choose another ${option}; nothing was sent.`,
  );
}

/**
 * A file written under a temporary name beside its target (mode 0600, created new: never through a link) and
 * moved into place by `commit`: a reader never sees half of it, and a failed run leaves the target as it was.
 * Without `force`, `commit` refuses to replace a file that appeared at the target in the meantime.
 */
export class AtomicFile {
  readonly fd: number;
  /** The temporary name, while the file has not been moved into place. */
  private temp?: string;

  constructor(
    readonly path: string,
    private readonly force: boolean,
  ) {
    const temp = join(
      dirname(path),
      `.${basename(path)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
    );
    // "wx": O_CREAT | O_EXCL, which fails on anything already there, a link included.
    this.fd = openSync(temp, "wx", 0o600);
    this.temp = temp;
  }

  write(data: string | Uint8Array): void {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done, bytes.length - done);
  }

  /** Moves the file into place (its bytes on disk first, so a crash never leaves an empty file there). */
  commit(): void {
    const temp = this.temp;
    if (temp === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    if (this.force) renameSync(temp, this.path);
    else placeNew(temp, this.path);
    this.temp = undefined;
  }

  /** Drops the temporary file (a run that failed before anything worth keeping was written). */
  discard(): void {
    const temp = this.temp;
    if (temp === undefined) return;
    this.temp = undefined;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    try {
      unlinkSync(temp);
    } catch {
      // gone already
    }
  }
}

/** Renames `temp` to `path` unless something is there: a hard link is atomic and never replaces anything. */
function placeNew(temp: string, path: string): void {
  try {
    linkSync(temp, path);
    unlinkSync(temp);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw appeared(temp, path);
    // Some file systems (FAT, some network shares) have no hard links: check, then rename.
    if (statOrUndefined(() => lstatSync(path)) !== undefined) throw appeared(temp, path);
    renameSync(temp, path);
  }
}

function appeared(temp: string, path: string): CliError {
  return new CliError(`${path} appeared while assess was writing it; it was left as it is`, {
    suggestion: `What assess wrote is in ${temp}: move it where you want it.`,
  });
}

function statOrUndefined(stat: () => Stats): Stats | undefined {
  try {
    return stat();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "?";
  }
}

/** A path as a shell word, for suggestions that show a command. */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
