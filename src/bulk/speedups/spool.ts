/**
 * The spool: the rows the validate-first pass checked, kept as the sending pass needs them (key hashes, the
 * item's JSON text, the label and source that reports and the rejects file need) in a private temporary
 * file. The sending pass replays it instead of reading and checking the input a second time, so each row is
 * parsed, checked and serialized once, and what is sent is exactly what was checked (a file edited between
 * the passes changes nothing). With the changes around it, the CLI's own CPU time for a million rows went
 * from 4.9 s to ~3.8 s (invites) and from 12.2 s to ~8 s (upserts): time the sandbox needs on the same two
 * cores (bench/README.md). Kept in a file rather than in memory: 1M invites, peak RSS 121.1 MiB against
 * 307.0 MiB with the same records in memory (48.1 s / 43.5 s on a busy machine: "The speed-ups, one by one").
 *
 * The file lives beside the ledgers (mode 0600 in a 0700 folder: it holds the candidates' data) and is
 * unlinked as soon as it is opened, where the system allows it, so that not even a SIGKILL leaves it behind;
 * elsewhere it is deleted when the run ends. It takes about four times the input's size while the run lasts
 * (1M rows: 196 MB for 52 MB of invites, 315 MB for 74 MB of employees).
 *
 * Invalid rows are spooled too, in their place (with --skip-invalid the sending pass reports them and writes
 * them to the rejects file; without it, a run with any never sends, and they cost only the error's case).
 *
 * Record layout, 4-byte aligned, in the machine's byte order (the file never leaves the process):
 *   u32 size, line, hi, lo, flags (1: has a dedupe key; 2 and 4: how the source is written; 8: an invalid
 *   row), dhi, dlo, groupBytes, labelBytes, jsonBytes, sourceBytes; then the four strings as UTF-8 (an invalid
 *   row's "json" is its error). The source is the row as read: CSV fields joined by NUL (JSON.stringify of
 *   them took more than the rest of the record), anything else as JSON.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../../errors.js";
import { ensureLedgerDir } from "../engine/ledger-dir.js";
import type { BulkRow, InvalidRow, ReadyEntry, ReadyRow } from "../engine/types.js";
import { hashHalves, hashKey } from "./keyset.js";

/** A replayed row, and where its source lies in the spool (`sourceOf` reads it). */
interface SpooledRow<T> extends ReadyRow<T> {
  spooledSource?: SpooledSource;
}

/** A row's key hashes as `hashRow` leaves them: hi, lo, has a dedupe key (1 or 0), dhi, dlo. */
const ROW_HASHES = new Uint32Array(5);

/** Hashes a row's ledger key and dedupe key into ROW_HASHES (no object a row: the check spools a million). */
function hashRow(row: BulkRow<unknown>): void {
  hashKey(row.key);
  ROW_HASHES[0] = hashHalves.hi;
  ROW_HASHES[1] = hashHalves.lo;
  if (row.dedupeKey === undefined) {
    ROW_HASHES[2] = ROW_HASHES[3] = ROW_HASHES[4] = 0;
    return;
  }
  hashKey(row.dedupeKey);
  ROW_HASHES[2] = 1;
  ROW_HASHES[3] = hashHalves.hi;
  ROW_HASHES[4] = hashHalves.lo;
}

/** Where a replayed row's source lies in the spool file (read and decoded on demand). */
interface SpooledSource {
  fd: number;
  position: number;
  bytes: number;
  /** CSV fields joined by NUL; else JSON. */
  fields: boolean;
}

const DEDUPE = 1;
const FIELDS = 2;
const JSON_SOURCE = 4;
const INVALID = 8;
/** groupBytes of a row whose group is the previous row's (the group is written once per run of rows). */
const SAME_GROUP = 0xffffffff;
const SEPARATOR = "\u0000";

/** How the spool writes a source: CSV fields (one or more strings without NUL) joined, anything else as JSON. */
function spooled(source: unknown): { flag: number; text: string } {
  if (source === undefined) return { flag: 0, text: "" };
  if (
    Array.isArray(source) &&
    source.length > 0 &&
    source.every((f) => typeof f === "string" && !f.includes(SEPARATOR))
  )
    return { flag: FIELDS, text: source.join(SEPARATOR) };
  return { flag: JSON_SOURCE, text: JSON.stringify(source) ?? "null" };
}

/**
 * The row as read, for the rejects file: read back from the spool (which stays open until the run is over)
 * only for the few rows that go there.
 */
export function sourceOf(row: ReadyRow<unknown>): unknown {
  const spooled = (row as SpooledRow<unknown>).spooledSource;
  if (!spooled) return undefined;
  const bytes = Buffer.allocUnsafe(spooled.bytes);
  for (let done = 0; done < bytes.length; ) {
    const read = readSync(spooled.fd, bytes, done, bytes.length - done, spooled.position + done);
    if (read === 0) throw new Error("the spool of checked rows ends inside a row");
    done += read;
  }
  return decodeSource(bytes.toString("utf8"), spooled.fields);
}

function decodeSource(text: string, fields: boolean): unknown {
  return fields ? text.split(SEPARATOR) : JSON.parse(text);
}

export interface SpoolFile {
  fd: number;
  /** The folder it is in: what a message names when it cannot be written. */
  dir: string;
  /** Set while the file still has a name (where it could not be unlinked at once). */
  path?: string;
}

/** What a writer needs of a spool file (a worker thread gets it as data). */
export type SpoolTarget = Pick<SpoolFile, "fd" | "dir">;

/** A new private spool file in `dir`. */
export function openSpool(dir: string): SpoolFile {
  let fd: number;
  const path = join(dir, `spool-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  try {
    // The ledgers' folder: refused when it is a link or others can write to it (it holds candidates' data).
    ensureLedgerDir(dir);
    // "wx+": created new, never opened through anything (a link) already at the random name.
    fd = openSync(path, "wx+", 0o600);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw spoolError(dir, error);
  }
  try {
    unlinkSync(path);
    return { fd, dir };
  } catch {
    return { fd, dir, path }; // Windows: an open file cannot be unlinked
  }
}

/** The checked rows could not be kept (no space, no such folder): nothing has been sent yet. */
function spoolError(where: string, error: unknown): CliError {
  const reason =
    (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`Cannot keep the checked rows in ${where}: ${reason}; nothing was sent`, {
    suggestion:
      "A bulk run keeps its checked rows beside its ledgers while it runs (about four times the input's size): free some space there, or point ASSESS_CONFIG_DIR at a folder with room.",
    cause: error,
  });
}

export function closeSpool(file: SpoolFile): void {
  try {
    closeSync(file.fd);
  } catch {
    // already closed
  }
  if (file.path) {
    try {
      unlinkSync(file.path);
    } catch {
      // gone already
    }
  }
}

const HEADER_WORDS = 11;
const HEADER_BYTES = HEADER_WORDS * 4;
const BUFFER_BYTES = 1024 * 1024;
/** Pieces the sending pass reads: ~1,500 invites. Measured on a million rows against 64 KiB: 0.1–0.3 s less. */
const REPLAY_BYTES = 256 * 1024;

/**
 * Appends checked rows to a spool file (hashing their keys on the way), buffered, with synchronous writes
 * (the check is all CPU anyway).
 */
export class SpoolWriter {
  private buffer = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  private words = wordsOf(this.buffer);
  private at = 0;
  private group: string | undefined;
  /** Rows added with a dedupe key of their own. */
  keyed = 0;

  constructor(private readonly spool: SpoolTarget) {}

  add(row: BulkRow<unknown>): void {
    const { flag, text: source } = spooled(row.source);
    const group = row.group === this.group ? "" : row.group;
    // At most 3 bytes of UTF-8 per UTF-16 unit, and 3 of padding.
    const most = HEADER_BYTES + 3 * (group.length + row.label.length + row.json.length + source.length) + 3;
    if (this.at + most > this.buffer.length) this.room(most);
    const b = this.buffer;
    const start = this.at;
    let p = start + HEADER_BYTES;
    // One write of the four strings when they are ASCII (bytes = characters), as most are: ~0.1 µs a row less.
    const all = group + row.label + row.json + source;
    const written = b.write(all, p);
    let groupBytes = group.length;
    let labelBytes = row.label.length;
    let jsonBytes = row.json.length;
    let sourceBytes = source.length;
    if (written === all.length) {
      p += written;
    } else {
      groupBytes = b.write(group, p);
      p += groupBytes;
      labelBytes = b.write(row.label, p);
      p += labelBytes;
      jsonBytes = b.write(row.json, p);
      p += jsonBytes;
      sourceBytes = b.write(source, p);
      p += sourceBytes;
    }
    p = (p + 3) & ~3;
    const w = this.words;
    const i = start >>> 2;
    w[i] = p - start;
    w[i + 1] = row.line;
    hashRow(row);
    w[i + 2] = ROW_HASHES[0]!;
    w[i + 3] = ROW_HASHES[1]!;
    w[i + 4] = (ROW_HASHES[2] === 1 ? DEDUPE : 0) | flag;
    w[i + 5] = ROW_HASHES[3]!;
    w[i + 6] = ROW_HASHES[4]!;
    w[i + 7] = row.group === this.group ? SAME_GROUP : groupBytes;
    w[i + 8] = labelBytes;
    w[i + 9] = jsonBytes;
    w[i + 10] = sourceBytes;
    if (ROW_HASHES[2] === 1) this.keyed++;
    this.group = row.group;
    this.at = p;
  }

  /** An invalid row, in its place: its line, label, error and source (no keys; the group runs on past it). */
  addInvalid(row: InvalidRow): void {
    const { flag, text: source } = spooled(row.source);
    const label = row.label ?? "";
    const most = HEADER_BYTES + 3 * (label.length + row.error.length + source.length) + 3;
    if (this.at + most > this.buffer.length) this.room(most);
    const b = this.buffer;
    const start = this.at;
    let p = start + HEADER_BYTES;
    const labelBytes = b.write(label, p);
    p += labelBytes;
    const errorBytes = b.write(row.error, p);
    p += errorBytes;
    const sourceBytes = b.write(source, p);
    p += sourceBytes;
    p = (p + 3) & ~3;
    const w = this.words;
    const i = start >>> 2;
    w.fill(0, i, i + HEADER_WORDS);
    w[i] = p - start;
    w[i + 1] = row.line;
    w[i + 4] = INVALID | flag;
    w[i + 7] = SAME_GROUP;
    w[i + 8] = labelBytes;
    w[i + 9] = errorBytes;
    w[i + 10] = sourceBytes;
    this.at = p;
  }

  /** Makes room for a record of up to `most` bytes: writes what is buffered, grows the buffer for a huge one. */
  private room(most: number): void {
    this.flush();
    if (most > this.buffer.length) {
      this.buffer = Buffer.allocUnsafeSlow(most);
      this.words = wordsOf(this.buffer);
    }
  }

  /** Writes what is buffered; call once the last row is added. */
  flush(): void {
    let done = 0;
    try {
      while (done < this.at) done += writeSync(this.spool.fd, this.buffer, done, this.at - done);
    } catch (error) {
      throw spoolError(this.spool.dir, error);
    }
    this.at = 0;
  }
}

/**
 * The rows of a spool file from its start, in batches; `lineOffset` is added to every line. The file was
 * written moments ago and is in the page cache: each read is a memory copy, done synchronously (through
 * libuv's thread pool, each of ~2,500 reads for a million invites cost the sending pass a thread hand-off
 * on a machine whose cores are busy with the requests). Each piece is read into a buffer of its own, and a
 * row is the slice of it that holds its item's JSON (`JsonBytes`): the request body is those bytes joined,
 * never decoded into a string and encoded again (~0.17 s less a million rows, in a loop alone). A piece lives
 * while a row of it waits to be sent; a row keeps no string but its label, and only where its source lies
 * in the file (`sourceOf`). Once `countOnly()` says so (the run stopped: its rows are counted, never sent),
 * rows come with an empty slice.
 */
export async function* replay<T>(
  fd: number,
  lineOffset = 0,
  countOnly: () => boolean = () => false,
): AsyncGenerator<ReadyEntry<T>[]> {
  const window = new SpoolWindow(fd, REPLAY_BYTES, REPLAY_BYTES / 2, true);
  let group = "";
  for (;;) {
    const bytesRead = window.fill();
    const { buffer, words, have, base } = window;
    const rows: Array<SpooledRow<T> | { invalid: InvalidRow }> = [];
    const withJson = !countOnly();
    let at = 0;
    while (at + HEADER_BYTES <= have) {
      const i = at >>> 2;
      const size = words[i]!;
      if (at + size > have) break;
      const groupBytes = words[i + 7]!;
      const labelAt = at + HEADER_BYTES + (groupBytes === SAME_GROUP ? 0 : groupBytes);
      const jsonAt = labelAt + words[i + 8]!;
      const sourceAt = jsonAt + words[i + 9]!;
      if (groupBytes !== SAME_GROUP) group = buffer.toString("utf8", at + HEADER_BYTES, labelAt);
      const flags = words[i + 4]!;
      if (flags & INVALID) {
        rows.push({ invalid: invalidAt(buffer, words, at, lineOffset) });
        at += size;
        continue;
      }
      rows.push({
        line: words[i + 1]! + lineOffset,
        group,
        hi: words[i + 2]!,
        lo: words[i + 3]!,
        dedupe: (flags & DEDUPE) !== 0,
        dhi: words[i + 5]!,
        dlo: words[i + 6]!,
        label: buffer.toString("utf8", labelAt, jsonAt),
        bytes: buffer,
        start: jsonAt,
        end: withJson ? sourceAt : jsonAt,
        spooledSource:
          flags & (FIELDS | JSON_SOURCE)
            ? { fd, position: base + sourceAt, bytes: words[i + 10]!, fields: (flags & FIELDS) !== 0 }
            : undefined,
      });
      at += size;
    }
    if (rows.length > 0) yield rows;
    if (window.advance(at, bytesRead)) return;
  }
}

/** The invalid row of the record at `at` (they are few: read whole, source and all). */
function invalidAt(buffer: Buffer, words: Uint32Array, at: number, lineOffset: number): InvalidRow {
  const i = at >>> 2;
  const labelAt = at + HEADER_BYTES;
  const errorAt = labelAt + words[i + 8]!;
  const sourceAt = errorAt + words[i + 9]!;
  const flags = words[i + 4]!;
  const source =
    flags & (FIELDS | JSON_SOURCE)
      ? decodeSource(buffer.toString("utf8", sourceAt, sourceAt + words[i + 10]!), (flags & FIELDS) !== 0)
      : undefined;
  const label = buffer.toString("utf8", labelAt, errorAt);
  return {
    line: words[i + 1]! + lineOffset,
    error: buffer.toString("utf8", errorAt, sourceAt),
    ...(label !== "" ? { label } : {}),
    source,
  };
}

/** What `scan` gives of each record; one object, filled again for each. */
export interface Scanned {
  line: number;
  /** The ledger key's hash. */
  hi: number;
  lo: number;
  /** Has a dedupe key, hashed in dhi and dlo. */
  dedupe: boolean;
  dhi: number;
  dlo: number;
  /** An invalid row: its error (the rest is 0). */
  error?: string;
}

const SCAN_BYTES = 256 * 1024;

/**
 * Goes through a spool file's records in order without making rows of them (their keys and lines only; an
 * invalid row's error too): for a pass over the checked rows before the sending pass replays them. Reads from
 * the page cache, synchronously: ~0.1 s for the 315 MB of a million employees.
 */
export function scan(fd: number, lineOffset: number, visit: (record: Scanned) => void): void {
  const window = new SpoolWindow(fd, SCAN_BYTES, 0);
  const record: Scanned = { line: 0, hi: 0, lo: 0, dedupe: false, dhi: 0, dlo: 0 };
  for (;;) {
    const bytesRead = window.fill();
    const { buffer, words, have } = window;
    let at = 0;
    while (at + HEADER_BYTES <= have) {
      const i = at >>> 2;
      const size = words[i]!;
      if (at + size > have) break;
      const flags = words[i + 4]!;
      record.line = words[i + 1]! + lineOffset;
      record.hi = words[i + 2]!;
      record.lo = words[i + 3]!;
      record.dedupe = (flags & DEDUPE) !== 0;
      record.dhi = words[i + 5]!;
      record.dlo = words[i + 6]!;
      if (flags & INVALID) {
        const errorAt = at + HEADER_BYTES + words[i + 8]!;
        record.error = buffer.toString("utf8", errorAt, errorAt + words[i + 9]!);
      } else record.error = undefined;
      visit(record);
      at += size;
    }
    if (window.advance(at, bytesRead)) return;
  }
}

/**
 * A spool file read piece by piece (the file is in the page cache: each read is a memory copy, done
 * synchronously), for `replay` and `scan`. After the records of a read are used, the one cut by its end moves
 * to the start of the buffer the next piece is read into: the same one again, or (`fresh`, when rows point
 * into the piece) a new one; one that would not fit, with `room` to spare, grows it.
 */
class SpoolWindow {
  buffer: Buffer;
  words: Uint32Array;
  /** Bytes of the file in the buffer, from its start; the file's offset of the buffer's first byte. */
  have = 0;
  base = 0;

  constructor(
    private readonly fd: number,
    private readonly piece: number,
    private readonly room: number,
    private readonly fresh = false,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(piece);
    this.words = wordsOf(this.buffer);
  }

  /** Reads on into the buffer; 0 at the end of the file. */
  fill(): number {
    const bytesRead = readSync(
      this.fd,
      this.buffer,
      this.have,
      this.buffer.length - this.have,
      this.base + this.have,
    );
    this.have += bytesRead;
    return bytesRead;
  }

  /** The records before `at` were used: true at the end of the file (where no record may be cut short). */
  advance(at: number, bytesRead: number): boolean {
    if (bytesRead === 0) {
      if (this.have > at) throw new Error("the spool of checked rows ends inside a row");
      return true;
    }
    this.base += at;
    this.have -= at;
    const need = this.have >= HEADER_BYTES ? this.words[at >>> 2]! : HEADER_BYTES;
    if (this.fresh || need + this.room > this.buffer.length) {
      const larger = Buffer.allocUnsafeSlow(Math.max(need + this.room, this.piece));
      this.buffer.copy(larger, 0, at, at + this.have);
      this.buffer = larger;
      this.words = wordsOf(larger);
    } else {
      this.buffer.copyWithin(0, at, at + this.have);
    }
    return false;
  }
}

function wordsOf(buffer: Buffer): Uint32Array {
  return new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length >>> 2);
}
