/**
 * Files assess writes for the user (`reports pdf` and `reports export --out`, `tests settings pull --out`,
 * bulk rejects): checked before any request goes out, never written through a link, never clobbering a file
 * unless `--force`, never seen half written. And the files it reads: why one cannot be read (`unreadable`),
 * one read whole within a bound (`readAtMost`, `readText`), standard input as a file (`stdinToFile`).
 */

import {
  accessSync,
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  linkSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CliError, UsageError } from "./errors.js";
import { shellWord } from "./escape.js";
import { NewFile } from "./new-file.js";

interface TargetOptions {
  /** The option that named the file (`--out`, `--rejects`), for messages. */
  option: string;
  /** `--force`: replace an existing file, or a link itself (its target is never written). */
  force: boolean;
  /** What the file is, for messages: "The rejects file". */
  what?: string;
}

/** Checks before anything is sent that `path` can be written: its folder exists, and unless `force` nothing is there. */
export function checkTarget(path: string, { option, force, what }: TargetOptions): void {
  const refuse = (message: string, hint: string) => new UsageError(message, `${hint}; nothing was sent.`);
  const named = what ? `${what} ${path}` : path;
  const folder = dirname(path);
  try {
    const folderInfo = statOrUndefined(() => statSync(folder));
    if (folderInfo === undefined) {
      throw refuse(
        `${option} ${path}: the folder ${folder} does not exist`,
        `Create it first (mkdir -p ${shellWord(folder)}), or choose another ${option}`,
      );
    }
    if (!folderInfo.isDirectory()) {
      throw refuse(`${option} ${path}: ${folder} is not a folder`, `Choose another ${option}`);
    }
    try {
      accessSync(folder, constants.W_OK);
    } catch {
      throw refuse(
        `${option} ${path}: the folder ${folder} is not writable`,
        `Choose a folder you can write to for ${option}`,
      );
    }
    const info = statOrUndefined(() => lstatSync(path));
    if (info === undefined) return;
    if (info.isDirectory()) {
      throw refuse(`${option} ${path} is a folder`, "Give the name of a file, in that folder or elsewhere");
    }
    if (force) return;
    if (info.isSymbolicLink()) {
      throw refuse(
        `${named} is a symbolic link (to ${linkTarget(path)}); assess does not write through links`,
        `Choose another ${option}, or pass --force to replace the link itself (its target is left alone)`,
      );
    }
    throw refuse(`${named} already exists`, `Pass --force to overwrite it, or choose another ${option}`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(
      `${option} ${path}: cannot check it (${code})`,
      `Check the permissions of its folder, or choose another ${option}; nothing was sent.`,
    );
  }
}

/**
 * A file written whole beside its target and moved into place by `commit` (a `NewFile`, ./new-file.ts).
 * Without `force`, `commit` refuses to replace a file that appeared at the target in the meantime.
 */
export class AtomicFile extends NewFile {
  constructor(
    path: string,
    private readonly force: boolean,
  ) {
    super(path);
  }

  override commit(): void {
    try {
      super.commit(this.force ? renameSync : placeNew);
    } catch (error) {
      // A file appeared at the target: what was written stays in `temp`, where the error says it is.
      if (error instanceof CliError) this.temp = undefined;
      throw error;
    }
  }

  /** Whether what was written is byte for byte the regular file at `other`. Call before `commit`. */
  sameAs(other: string): boolean {
    const temp = this.temp;
    if (temp === undefined) return false;
    const theirs = statOrUndefined(() => lstatSync(other));
    if (!theirs?.isFile() || theirs.size !== statSync(temp).size) return false;
    return sameBytes(temp, other, theirs.size);
  }
}

/** Writes `file` with `fill`, then moves it into place; on any failure what was written goes (`discard`). */
export async function commitOrDiscard<T>(
  file: Pick<AtomicFile, "commit" | "discard">,
  fill: () => T | Promise<T>,
): Promise<T> {
  try {
    const result = await fill();
    file.commit();
    return result;
  } catch (error) {
    file.discard();
    throw error;
  }
}

function sameBytes(a: string, b: string, size: number): boolean {
  const [fa, fb] = [openSync(a, "r"), openSync(b, "r")];
  try {
    const [ba, bb] = [Buffer.alloc(64 * 1024), Buffer.alloc(64 * 1024)];
    for (let at = 0; at < size; ) {
      const n = readSync(fa, ba, 0, ba.length, at);
      if (n === 0 || readSync(fb, bb, 0, n, at) !== n || !ba.subarray(0, n).equals(bb.subarray(0, n)))
        return false;
      at += n;
    }
    return true;
  } finally {
    closeSync(fa);
    closeSync(fb);
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

/** Why a file cannot be read, in words (exit 2); `stdin`: the hint offers `-`. */
export function unreadable(name: string, error: unknown, { stdin = false } = {}): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const orStdin = stdin ? ", or give - to read standard input" : "";
  switch (code) {
    case "ENOENT":
      return new UsageError(
        `${name} does not exist`,
        `Check the file's name and folder (a relative path starts from ${shellWord(process.cwd())})${orStdin}.`,
      );
    case "ENOTDIR":
      return new UsageError(`${name} does not exist: a part of its path is not a folder`);
    case "EACCES":
    case "EPERM":
      return new UsageError(`${name}: permission denied`, "Check the file's permissions (ls -l).");
    case "EISDIR":
      return new UsageError(`${name} is a folder, not a file`, `Name a file in it${orStdin}.`);
    default:
      return new UsageError(`Cannot read ${name}: ${code ?? (error as Error).message ?? String(error)}`);
  }
}

/** `512 bytes`, `3.1 MiB`: sizes in messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "")} MiB`;
}

/**
 * All of `input`, or undefined as soon as it passes `limit` bytes: then it is read no further (a stream is
 * destroyed), and no more than the limit and one chunk was held.
 */
export async function readAtMost(
  input: AsyncIterable<Buffer | string>,
  limit: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const piece of input) {
    const chunk = typeof piece === "string" ? Buffer.from(piece) : piece;
    bytes += chunk.length;
    if (bytes > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The text of a file the user names, or of standard input (`-`, when `stdin` is given), read whole: more than
 * `limit` bytes is a usage error naming the source, `what` it is read as and the limit (and is read no further);
 * a file that cannot be read is `unreadable`'s.
 */
export async function readText(path: string, limit: number, what: string, stdin?: Readable): Promise<string> {
  const fromStdin = path === "-" ? stdin : undefined;
  const name = fromStdin ? "stdin" : path;
  let bytes: Buffer | undefined;
  try {
    bytes = await readAtMost(fromStdin ?? createReadStream(path, { end: limit }), limit);
  } catch (error) {
    throw unreadable(name, error, { stdin: stdin !== undefined });
  }
  if (bytes === undefined) {
    throw new UsageError(
      `${name} holds more than ${formatBytes(limit)}, more than ${what} can be; nothing was sent`,
    );
  }
  return bytes.toString("utf8");
}

/** Standard input copied to a private temporary file, for a reader that reads its input more than once. */
export async function stdinToFile(
  stdin: Readable & { isTTY?: boolean },
  fileName: string,
): Promise<{ path: string; remove(): void }> {
  if (stdin.isTTY === true) {
    throw new UsageError(
      "- reads standard input, which is a terminal here",
      "Pipe or redirect the file in: `assess invite bulk - < candidates.csv`, `cat staff.csv | assess employees upsert -`.",
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "assess-stdin-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const path = join(dir, fileName);
  try {
    await pipeline(stdin, createWriteStream(path, { flags: "wx", mode: 0o600 }));
  } catch (error) {
    remove();
    throw new UsageError(`Cannot read standard input: ${(error as Error).message}`);
  }
  return { path, remove };
}
