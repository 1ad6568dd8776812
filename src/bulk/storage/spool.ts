/**
 * The spool: the rows the validate-first pass checked, kept in a private temporary file as the sending pass
 * needs them, so each row is parsed, checked and serialized once and what is sent is exactly what was checked.
 * The file lives beside the ledgers (0600 in a 0700 folder) and is unlinked as soon as it is opened where the
 * system allows it. Invalid rows are spooled too, in their place.
 *
 * Record layout, 4-byte aligned, in the machine's byte order (the file never leaves the process):
 *   u32 size, line, hi, lo, flags (1: has a dedupe key; 2 and 4: how the source is written; 8: an invalid
 *   row), dhi, dlo, groupBytes, labelBytes, jsonBytes, sourceBytes; then the four strings as UTF-8 (an invalid
 *   row's "json" is its error). The source is the row as read: CSV fields joined by NUL, anything else as JSON.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../../errors.js";
import { ensureLedgerDir } from "../engine/ledger.js";
import type { BulkRow, InvalidRow, ReadyEntry, ReadyRow } from "../engine/types.js";
import { hashHalves, hashKey } from "./keyset.js";

/** A replayed row, and where its source lies in the piece of the spool its JSON is in (`bytes`). */
type SpooledRow<T> = ReadyRow<T> & { spooledSource?: SpooledSource };

interface SpooledSource {
  start: number;
  end: number;
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

/** How the spool writes a source: CSV fields (strings without NUL) joined, anything else as JSON. */
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

/** The row as read, for the rejects file: decoded only for the few rows that go there. */
export function sourceOf(row: ReadyRow<unknown>): unknown {
  const spooled = (row as SpooledRow<unknown>).spooledSource;
  return spooled && decodeSource(row.bytes as Buffer, spooled); // a spool's piece, as `replay` made it
}

function decodeSource(buffer: Buffer, { start, end, fields }: SpooledSource): unknown {
  const text = buffer.toString("utf8", start, end);
  return fields ? text.split(SEPARATOR) : JSON.parse(text);
}

export interface SpoolFile {
  fd: number;
  /** The folder it is in, for messages. */
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
    ensureLedgerDir(dir); // refused when a link, or writable by others
    // "wx+": created new, never opened through a link already at the random name.
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

/** The checked rows could not be kept: nothing has been sent yet. */
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

/** Eleven u32 words (the layout above). */
const HEADER_BYTES = 11 * 4;
const BUFFER_BYTES = 1024 * 1024;
/** Pieces the passes read: ~1,500 invites (0.1–0.3 s less a million rows than 64 KiB). */
const PIECE_BYTES = 256 * 1024;

/** Byte lengths of the strings `SpoolWriter.record` last wrote. */
const LENGTHS = new Uint32Array(4);

/** Appends checked rows to a spool file (hashing their keys), buffered, with synchronous writes. */
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
    const sameGroup = row.group === this.group;
    const i = this.record(sameGroup ? "" : row.group, row.label, row.json, source);
    const w = this.words;
    hashKey(row.key);
    w[i + 2] = hashHalves.hi;
    w[i + 3] = hashHalves.lo;
    if (row.dedupeKey === undefined) {
      w[i + 4] = flag;
      w[i + 5] = w[i + 6] = 0;
    } else {
      hashKey(row.dedupeKey);
      w[i + 4] = DEDUPE | flag;
      w[i + 5] = hashHalves.hi;
      w[i + 6] = hashHalves.lo;
      this.keyed++;
    }
    w[i + 1] = row.line;
    if (sameGroup) w[i + 7] = SAME_GROUP;
    this.group = row.group;
  }

  /** An invalid row, in its place (no keys; the group runs on past it). */
  addInvalid(row: InvalidRow): void {
    const { flag, text: source } = spooled(row.source);
    const i = this.record("", row.label ?? "", row.error, source);
    const w = this.words;
    w.fill(0, i + 2, i + 7);
    w[i + 1] = row.line;
    w[i + 4] = INVALID | flag;
    w[i + 7] = SAME_GROUP;
  }

  /**
   * Writes a record's four strings and their lengths and size into its header; returns the header's first
   * word, for the caller to fill in the rest.
   */
  private record(group: string, label: string, json: string, source: string): number {
    // At most 3 bytes of UTF-8 per UTF-16 unit, and 3 of padding.
    const most = HEADER_BYTES + 3 * (group.length + label.length + json.length + source.length) + 3;
    if (this.at + most > this.buffer.length) {
      this.flush();
      // A huge record gets a buffer of its own.
      if (most > this.buffer.length) {
        this.buffer = Buffer.allocUnsafeSlow(most);
        this.words = wordsOf(this.buffer);
      }
    }
    const b = this.buffer;
    const start = this.at;
    let p = start + HEADER_BYTES;
    // One write of the four strings when they are ASCII (bytes = characters), as most are: ~0.1 µs a row less.
    const all = group + label + json + source;
    const written = b.write(all, p);
    if (written === all.length) {
      LENGTHS[0] = group.length;
      LENGTHS[1] = label.length;
      LENGTHS[2] = json.length;
      LENGTHS[3] = source.length;
      p += written;
    } else {
      // No array a row on the common path: the four are listed only when one is not ASCII.
      const texts = [group, label, json, source];
      for (let k = 0; k < 4; k++) {
        LENGTHS[k] = b.write(texts[k]!, p);
        p += LENGTHS[k]!;
      }
    }
    p = (p + 3) & ~3;
    const w = this.words;
    const i = start >>> 2;
    w[i] = p - start;
    w.set(LENGTHS, i + 7);
    this.at = p;
    return i;
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
 * The rows of a spool file, in batches, `lineOffset` added to every line. Each piece is read into a buffer of
 * its own and a row is the slice holding its item's JSON: request bodies join those bytes, never decoded and
 * encoded again; its source stays in the same buffer. Once `countOnly()` (the run stopped: rows are counted,
 * never sent), the slices are empty. An invalid row is read whole (they are few).
 */
export async function* replay<T>(
  fd: number,
  lineOffset = 0,
  countOnly: () => boolean = () => false,
): AsyncGenerator<ReadyEntry<T>[]> {
  const window = new SpoolWindow(fd, PIECE_BYTES, PIECE_BYTES / 2, true);
  let group = "";
  for (let more = true; more; ) {
    const rows: Array<SpooledRow<T> | { invalid: InvalidRow }> = [];
    const withJson = !countOnly();
    more = window.next((at) => {
      const { buffer, words } = window;
      const i = at >>> 2;
      const flags = words[i + 4]!;
      const line = words[i + 1]! + lineOffset;
      // An invalid row's group is SAME_GROUP: its "json" (the error) follows its label.
      const groupBytes = words[i + 7]!;
      const labelAt = at + HEADER_BYTES + (groupBytes === SAME_GROUP ? 0 : groupBytes);
      const jsonAt = labelAt + words[i + 8]!;
      const sourceAt = jsonAt + words[i + 9]!;
      const label = buffer.toString("utf8", labelAt, jsonAt);
      const spooledSource =
        flags & (FIELDS | JSON_SOURCE)
          ? { start: sourceAt, end: sourceAt + words[i + 10]!, fields: (flags & FIELDS) !== 0 }
          : undefined;
      if (flags & INVALID) {
        const error = buffer.toString("utf8", jsonAt, sourceAt);
        const source = spooledSource && decodeSource(buffer, spooledSource);
        rows.push({ invalid: { line, error, ...(label !== "" ? { label } : {}), source } });
        return;
      }
      if (groupBytes !== SAME_GROUP) group = buffer.toString("utf8", at + HEADER_BYTES, labelAt);
      rows.push({
        line,
        group,
        hi: words[i + 2]!,
        lo: words[i + 3]!,
        dedupe: (flags & DEDUPE) !== 0,
        dhi: words[i + 5]!,
        dlo: words[i + 6]!,
        label,
        bytes: buffer,
        start: jsonAt,
        end: withJson ? sourceAt : jsonAt,
        spooledSource,
      });
    });
    if (rows.length > 0) yield rows;
  }
}

/** What `scan` gives of each record; one object, filled again for each. */
export interface Scanned {
  line: number;
  /** Half the ledger key's hash: a keyed row's content, which dedupe.ts tells rows apart by. */
  hi: number;
  /** Has a dedupe key, hashed in dhi and dlo. */
  dedupe: boolean;
  dhi: number;
  dlo: number;
  /** An invalid row: its error (the rest is 0). */
  error?: string;
}

/** Goes through a spool file's records in order, their keys and lines only (and an invalid row's error). */
export function scan(fd: number, lineOffset: number, visit: (record: Scanned) => void): void {
  const window = new SpoolWindow(fd, PIECE_BYTES, 0);
  const record: Scanned = { line: 0, hi: 0, dedupe: false, dhi: 0, dlo: 0 };
  const read = (at: number) => {
    const { buffer, words } = window;
    const i = at >>> 2;
    const flags = words[i + 4]!;
    record.line = words[i + 1]! + lineOffset;
    record.hi = words[i + 2]!;
    record.dedupe = (flags & DEDUPE) !== 0;
    record.dhi = words[i + 5]!;
    record.dlo = words[i + 6]!;
    if (flags & INVALID) {
      const errorAt = at + HEADER_BYTES + words[i + 8]!;
      record.error = buffer.toString("utf8", errorAt, errorAt + words[i + 9]!);
    } else record.error = undefined;
    visit(record);
  };
  while (window.next(read));
}

/**
 * A spool file read piece by piece, synchronously (it is in the page cache: a read is a memory copy). The
 * record cut by a piece's end moves to the start of the next buffer: the same one, or a new one when rows
 * point into the piece (`fresh`) or the record would not fit with `room` to spare.
 */
class SpoolWindow {
  buffer: Buffer;
  words: Uint32Array;
  /** The file's offset of the buffer's first byte. */
  private base = 0;
  /** Bytes of the file in the buffer. */
  private have = 0;

  constructor(
    private readonly fd: number,
    private readonly piece: number,
    private readonly room: number,
    private readonly fresh = false,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(piece);
    this.words = wordsOf(this.buffer);
  }

  /** Reads on, calling `visit` with the offset of each whole record in the buffer; false at the file's end. */
  next(visit: (at: number) => void): boolean {
    const { fd, buffer, have } = this;
    const bytesRead = readSync(fd, buffer, have, buffer.length - have, this.base + have);
    this.have += bytesRead;
    let at = 0;
    while (at + HEADER_BYTES <= this.have) {
      const size = this.words[at >>> 2]!;
      if (at + size > this.have) break;
      visit(at);
      at += size;
    }
    if (bytesRead === 0) {
      if (this.have > at) throw new Error("the spool of checked rows ends inside a row");
      return false;
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
    return true;
  }
}

function wordsOf(buffer: Buffer): Uint32Array {
  return new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length >>> 2);
}
