/**
 * The spool: the rows the validate-first pass checked, kept as the sending pass needs them (key hashes, the
 * item's JSON text, the label and source that reports and the rejects file need) in a private temporary
 * file. The sending pass replays it instead of reading and checking the input a second time, so each row is
 * parsed, checked and serialized once, and what is sent is exactly what was checked (a file edited between
 * the passes changes nothing). On a million rows this took the CLI's own CPU time from 4.9 s to ~2.9 s
 * (invites) and from 12.2 s to ~5 s (upserts), which the sandbox needs on the same two cores
 * (bench/README.md).
 *
 * The file lives beside the ledgers (mode 0600 in a 0700 folder: it holds the candidates' data) and is
 * unlinked as soon as it is opened, where the system allows it, so that not even a SIGKILL leaves it behind;
 * elsewhere it is deleted when the run ends. It takes about three times the input's size while the run lasts.
 *
 * Record layout, 4-byte aligned, in the machine's byte order (the file never leaves the process):
 *   u32 size, line, hi, lo, flags (1: has a dedupe key; 2 and 4: how the source is written), dhi, dlo,
 *   groupBytes, labelBytes, jsonBytes, sourceBytes; then the four strings as UTF-8. The source is the row as
 *   read: CSV fields joined by NUL (JSON.stringify of them took more than the rest of the record), anything
 *   else as JSON.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, read, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { asJson } from "../api/json.js";
import type { BulkRow, InvalidRow, SentRow } from "./engine.js";
import { H, hashKey } from "./keyset.js";

/** A checked row ready to send: its keys hashed, its item serialized. */
export interface ReadyRow<T> extends SentRow<T> {
  line: number;
  group: string;
  /** Hash of the ledger key. */
  hi: number;
  lo: number;
  /** The dedupe key's hash, when the row has a dedupe key of its own (upsert: e-mail vs content). */
  dedupe: boolean;
  dhi: number;
  dlo: number;
  /** The row as read (rows read directly), or as the spool wrote it (rows replayed: `sourceOf` reads it). */
  source?: unknown;
  spooledSource?: SpooledSource;
  invalid?: undefined;
}

/** What the sending pass reads: ready rows, and (without a validate-first pass) invalid ones. */
export type ReadyEntry<T> = ReadyRow<T> | { invalid: InvalidRow };

/** Hashes a row's keys: the one place a BulkRow becomes a ReadyRow. */
export function ready<T>(row: BulkRow<T>): ReadyRow<T> {
  hashKey(row.key);
  const { hi, lo } = H;
  let dedupe = false;
  if (row.dedupeKey !== undefined) {
    hashKey(row.dedupeKey);
    dedupe = true;
  }
  return {
    line: row.line,
    group: row.group,
    hi,
    lo,
    dedupe,
    dhi: dedupe ? H.hi : 0,
    dlo: dedupe ? H.lo : 0,
    label: row.label,
    json: row.json,
    source: row.source,
  };
}

/** A row's source as the spool keeps it: CSV fields joined by NUL, or JSON. */
interface SpooledSource {
  fields: boolean;
  text: string;
}

const DEDUPE = 1;
const FIELDS = 2;
const JSON_SOURCE = 4;
const SEPARATOR = "\u0000";

/** How the spool writes a source: CSV fields (strings without NUL) joined, anything else as JSON. */
function spooled(source: unknown): { flag: number; text: string } {
  if (source === undefined) return { flag: 0, text: "" };
  if (Array.isArray(source) && source.every((f) => typeof f === "string" && !f.includes(SEPARATOR)))
    return { flag: FIELDS, text: source.join(SEPARATOR) };
  return { flag: JSON_SOURCE, text: JSON.stringify(source) ?? "null" };
}

/** The row as read, for the rejects file (decoded only for the few rows that go there). */
export function sourceOf(row: ReadyRow<unknown>): unknown {
  const spooled = row.spooledSource;
  if (!spooled) return row.source;
  return spooled.fields ? spooled.text.split(SEPARATOR) : JSON.parse(spooled.text);
}

export interface SpoolFile {
  fd: number;
  /** Set while the file still has a name (where it could not be unlinked at once). */
  path?: string;
}

/** A new private spool file in `dir`. */
export function openSpool(dir: string): SpoolFile {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `spool-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(path, "w+", 0o600);
  try {
    unlinkSync(path);
    return { fd };
  } catch {
    return { fd, path }; // Windows: an open file cannot be unlinked
  }
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
const HEADER = HEADER_WORDS * 4;
const BUFFER_BYTES = 1024 * 1024;
/**
 * Pieces the sending pass reads. Its rows live until their chunk has gone out: like the CSV reader's pieces
 * (csv.ts), small ones keep fewer of them alive past a young-generation collection.
 */
const REPLAY_BYTES = 64 * 1024;

/** Appends ready rows to a spool file, buffered, with synchronous writes (the check is all CPU anyway). */
export class SpoolWriter {
  private buffer = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  private words = wordsOf(this.buffer);
  private at = 0;

  constructor(private readonly fd: number) {}

  add(row: ReadyRow<unknown>): void {
    const { flag, text: source } = spooled(row.source);
    // At most 3 bytes of UTF-8 per UTF-16 unit, and 3 of padding.
    const most = HEADER + 3 * (row.group.length + row.label.length + row.json.length + source.length) + 3;
    if (this.at + most > this.buffer.length) {
      this.flush();
      if (most > this.buffer.length) {
        this.buffer = Buffer.allocUnsafeSlow(most);
        this.words = wordsOf(this.buffer);
      }
    }
    const b = this.buffer;
    const start = this.at;
    let p = start + HEADER;
    const groupBytes = b.write(row.group, p);
    p += groupBytes;
    const labelBytes = b.write(row.label, p);
    p += labelBytes;
    const jsonBytes = b.write(row.json, p);
    p += jsonBytes;
    const sourceBytes = b.write(source, p);
    p = (p + sourceBytes + 3) & ~3;
    const w = this.words;
    const i = start >>> 2;
    w[i] = p - start;
    w[i + 1] = row.line;
    w[i + 2] = row.hi;
    w[i + 3] = row.lo;
    w[i + 4] = (row.dedupe ? DEDUPE : 0) | flag;
    w[i + 5] = row.dhi;
    w[i + 6] = row.dlo;
    w[i + 7] = groupBytes;
    w[i + 8] = labelBytes;
    w[i + 9] = jsonBytes;
    w[i + 10] = sourceBytes;
    this.at = p;
  }

  /** Writes what is buffered; call once the last row is added. */
  flush(): void {
    let done = 0;
    while (done < this.at) done += writeSync(this.fd, this.buffer, done, this.at - done);
    this.at = 0;
  }
}

/** The rows of a spool file from its start, in batches; `lineOffset` is added to every line. */
export async function* replay<T>(fd: number, lineOffset = 0): AsyncGenerator<ReadyRow<T>[]> {
  let buffer = Buffer.allocUnsafeSlow(REPLAY_BYTES);
  let words = wordsOf(buffer);
  let have = 0;
  let position = 0;
  for (;;) {
    const bytesRead = await readAt(fd, buffer, have, position);
    position += bytesRead;
    have += bytesRead;
    const rows: ReadyRow<T>[] = [];
    let at = 0;
    while (at + HEADER <= have) {
      const i = at >>> 2;
      const size = words[i]!;
      if (at + size > have) break;
      const labelAt = at + HEADER + words[i + 7]!;
      const jsonAt = labelAt + words[i + 8]!;
      const sourceAt = jsonAt + words[i + 9]!;
      const flags = words[i + 4]!;
      const group = buffer.toString("utf8", at + HEADER, labelAt);
      const label = buffer.toString("utf8", labelAt, jsonAt);
      const json = buffer.toString("utf8", jsonAt, sourceAt);
      rows.push({
        line: words[i + 1]! + lineOffset,
        group,
        hi: words[i + 2]!,
        lo: words[i + 3]!,
        dedupe: (flags & DEDUPE) !== 0,
        dhi: words[i + 5]!,
        dlo: words[i + 6]!,
        label,
        json: asJson<T>(json),
        spooledSource:
          flags & (FIELDS | JSON_SOURCE)
            ? {
                fields: (flags & FIELDS) !== 0,
                text: buffer.toString("utf8", sourceAt, sourceAt + words[i + 10]!),
              }
            : undefined,
      });
      at += size;
    }
    if (rows.length > 0) yield rows;
    if (bytesRead === 0) {
      if (have > at) throw new Error("the spool of checked rows ends inside a row");
      return;
    }
    buffer.copy(buffer, 0, at, have);
    have -= at;
    // A record larger than the buffer: make room for it whole.
    const need = have >= HEADER ? words[0]! : HEADER;
    if (need > buffer.length) {
      const larger = Buffer.allocUnsafeSlow(need + REPLAY_BYTES);
      buffer.copy(larger, 0, 0, have);
      buffer = larger;
      words = wordsOf(buffer);
    }
  }
}

function readAt(fd: number, buffer: Buffer, offset: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, offset, buffer.length - offset, position, (error, bytesRead) =>
      error ? reject(error) : resolve(bytesRead),
    ),
  );
}

/** A buffer of its own (allocUnsafeSlow: offset 0, no pool) seen as 32-bit words. */
function wordsOf(buffer: Buffer): Uint32Array {
  return new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length >>> 2);
}
