/**
 * The one way assess writes a file whole (config/private.ts's files, the files of --out: files.ts): under a new
 * name beside it, then moved over it, so no one, a later run included, ever reads it half written.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Absent on Windows, where links need privileges. */
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * A file written whole under a new name beside `path`, then moved over it by `commit`: never seen half written.
 * The name is random and hidden (`.<name>.<pid>-<random>.tmp`), the file created new (O_EXCL, O_NOFOLLOW:
 * never through a link nor over anything there), mode 0600, and flushed to disk before it moves.
 */
export class NewFile {
  readonly fd: number;
  /** What was written, until it is moved into place or removed. */
  protected temp?: string;
  private closed = false;

  constructor(readonly path: string) {
    const temp = join(
      dirname(path),
      `.${basename(path)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
    );
    this.fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    this.temp = temp;
  }

  write(data: string | Uint8Array): void {
    writeFileSync(this.fd, data);
  }

  /**
   * Moves the file into place with `place` (a rename over whatever is there), its bytes on disk first: a crash
   * never leaves an empty file there. When `place` fails, what was written stays until `discard`. `durable`
   * false skips the flush to disk (~2 ms a file here): for a file a crash may cut short because its reader
   * refuses a cut one and nothing is lost with it (a code cache, which its seal rejects and the next run writes).
   */
  commit(place: (temp: string, path: string) => void = renameSync, durable = true): void {
    const temp = this.temp;
    if (temp === undefined) return;
    if (durable) fsyncSync(this.fd);
    this.close();
    place(temp, this.path);
    this.temp = undefined;
  }

  /** Removes what was written; a committed file is left alone. */
  discard(): void {
    const temp = this.temp;
    if (temp === undefined) return;
    this.temp = undefined;
    try {
      this.close();
    } catch {
      // a failing disk: the file goes all the same
    }
    try {
      unlinkSync(temp);
    } catch {
      // gone already
    }
  }

  /** Closes the file once: a descriptor closed twice may be another file's by then. */
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
