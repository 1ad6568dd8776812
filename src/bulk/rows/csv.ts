/**
 * Streaming CSV input for bulk runs: UTF-8 with or without BOM, `,` `;` or tab detected from the header row,
 * CRLF, quoted fields with delimiters and line breaks, and the physical 1-based line where each record starts
 * (so every message can say `file.csv:12`). The file is read in 16 KiB pieces with backpressure: only the
 * records of the piece being handled are in memory. Lines are split here until the first quote (or a line
 * nearing the record limit); csv-parse parses from that line on (`fieldBatches`).
 */
import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import { pipeline } from "node:stream";
import { type Options, type Parser, parse } from "csv-parse";
import { UsageError } from "../../errors.js";
import { unreadable } from "../../files.js";
import { rowPlace } from "./columns.js";

export interface CsvRecord {
  /** Physical line where the record starts (1-based). */
  line: number;
  fields: string[];
}

/** What identifies an opened CSV input: enough to read it again elsewhere (a worker thread) without sniffing. */
export interface CsvSource {
  path: string;
  /** How messages name the file. */
  name: string;
  delimiter: string;
  /** Header cells as written (trimmed). */
  header: string[];
  headerLine: number;
  /**
   * For the rows of a spreadsheet (xlsx.ts): the sheet's name. Messages then say `file.xlsx, sheet "Staff",
   * row 12` and name columns as `column "email"` (columns.ts `rowPlace`).
   */
  sheet?: string;
}

/**
 * A part of the file, [start, end) in bytes, that begins on a record boundary. Lines in a part are counted
 * from its start (line 1 = the part's first line): only the reader of the part before it knows the offset.
 */
export interface ByteRange {
  start: number;
  end: number;
}

export interface CsvInput extends CsvSource {
  /**
   * The data records (header and blank lines left out), in batches, from the start of the file (or of `range`)
   * each call. `end`, when given, receives the line where a record after the last one would start.
   */
  batches(range?: ByteRange, end?: { line: number }): AsyncGenerator<CsvRecord[]>;
}

/** A syntax error at a line (relative to the part being read, for a ByteRange). */
export class CsvSyntaxError extends UsageError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
    readonly hint: string,
  ) {
    super(`${file}:${line}: ${detail}`, hint);
  }
}

/** A record longer than this is refused (a missing closing quote would otherwise swallow the file). */
export const MAX_RECORD_BYTES = 1024 * 1024;
const SNIFF_BYTES = 64 * 1024;
/**
 * The size of each read. A piece's records live until the sending pass has dispatched them; the larger the
 * piece, the more of them outlive a young-generation collection and are promoted, to wait for a full one.
 * Measured on a million rows, 16 KiB against 64 KiB: the same time, peak RSS 114–116 MiB against 147–150 MiB
 * (upsert) and 108–110 against 121–154 (invite); 256 KiB and 1 MiB parse no faster and take more memory still.
 */
const PIECE_BYTES = 16 * 1024;
const DELIMITERS = [",", ";", "\t"];

/** `--delimiter`: one character, or the words `tab`, `comma`, `semicolon`. */
export function parseDelimiter(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const named: Record<string, string> = { tab: "\t", "\\t": "\t", comma: ",", semicolon: ";", pipe: "|" };
  const delimiter = named[text.toLowerCase()] ?? text;
  if (delimiter.length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new UsageError(`--delimiter must be one character (or tab), got "${text}"`);
  }
  return delimiter;
}

export async function openCsv(
  path: string,
  options: {
    delimiter?: string;
    /** How messages name the input (default: its path, shortened): "stdin" for `-`. */
    name?: string;
    /** A header row for this kind of input, suggested when the file is empty. */
    example?: string;
  } = {},
): Promise<CsvInput> {
  const name = options.name ?? displayName(path);
  const example = options.example ?? "email,name";
  const head = await sniff(path, name, example);
  const excel = /^sep=(.)\r?\n/i.exec(head)?.[1];
  const delimiter = options.delimiter ?? excel ?? detectDelimiter(head);
  const input = csvInput({ path, name, delimiter, header: [], headerLine: 1 });
  for await (const batch of readRecords(path, name, delimiter, { header: "keep" })) {
    const first = batch[0];
    if (first) {
      input.header = first.fields.map((cell) => cell.trim());
      input.headerLine = first.line;
      break;
    }
  }
  if (input.header.length === 0) throw emptyFile(name, example);
  return input;
}

/** An input opened before (by openCsv, maybe in another thread). */
export function csvInput(source: CsvSource): CsvInput {
  return {
    ...source,
    batches: (range, end) => readRecords(source.path, source.name, source.delimiter, { range, end }),
  };
}

/**
 * Where to cut the file in two for a reader each: just after the first line break at or after the middle.
 * The cut is only right if that break is outside quotes, which the reader of the first part finds out: its
 * part then ends cleanly, instead of inside a quoted value.
 */
export async function midpoint(path: string, size: number): Promise<number | undefined> {
  const handle = await open(path, "r");
  try {
    const window = Buffer.alloc(Math.min(SNIFF_BYTES, size));
    const from = Math.floor(size / 2);
    const { bytesRead } = await handle.read(window, 0, window.length, from);
    const nl = window.subarray(0, bytesRead).indexOf(10);
    return nl === -1 || from + nl + 1 >= size ? undefined : from + nl + 1;
  } finally {
    await handle.close();
  }
}

function displayName(path: string): string {
  return path.length > 60 ? basename(path) : path;
}

/** The first 64 KiB: refuses missing, empty, binary and non-UTF-8 files before any parsing. */
async function sniff(path: string, name: string, example: string): Promise<string> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new UsageError(`${name} is a directory, not a CSV file`);
    size = info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(name, error, { stdin: true });
  }
  if (size === 0) throw emptyFile(name, example);
  const handle = await open(path, "r");
  const buffer = Buffer.alloc(Math.min(size, SNIFF_BYTES));
  try {
    await handle.read(buffer, 0, buffer.length, 0);
  } finally {
    await handle.close();
  }
  if ((buffer[0] === 0xff && buffer[1] === 0xfe) || (buffer[0] === 0xfe && buffer[1] === 0xff)) {
    throw new UsageError(
      `${name}:1: UTF-16 text; CSV input must be UTF-8`,
      'Save the file as "CSV UTF-8" (Excel) or convert it, e.g. `iconv -f utf-16 -t utf-8 in.csv > out.csv`.',
    );
  }
  const nul = buffer.indexOf(0);
  if (nul !== -1) {
    throw new UsageError(
      `${name}:${lineAt(buffer, nul)}: binary data (a NUL byte): this is not a CSV text file`,
      "Export the sheet as CSV (UTF-8) and try again.",
    );
  }
  const complete = buffer.length < size ? completeUtf8(buffer) : buffer.length;
  if (!isUtf8(buffer.subarray(0, complete))) {
    throw notUtf8(name, lineAt(buffer, firstInvalidUtf8(buffer.subarray(0, complete))));
  }
  const text = buffer.toString("utf8", 0, complete).replace(/^\uFEFF/, "");
  if (size > SNIFF_BYTES && firstLineEnd(text) === -1) {
    throw new UsageError(
      `${name}:1: the first line is longer than ${SNIFF_BYTES / 1024} KiB: not a CSV file with a header row`,
      "The first row must name the columns (for example: email,name).",
    );
  }
  return text;
}

/** The message for a file with a header and no data rows (a usage error, exit 2: nothing to send). */
export function noRowsMessage(input: CsvInput): string {
  return `${rowPlace(input, input.headerLine)}: a header row and no data rows after it: nothing to send`;
}

function emptyFile(name: string, example: string): UsageError {
  return new UsageError(
    `${name}:1: the file is empty: nothing to send`,
    `The first row names the columns (for example: ${example}); each following row is one item.`,
  );
}

function notUtf8(name: string, line: number): UsageError {
  return new UsageError(
    `${name}:${line}: not UTF-8 text`,
    'Save the file as "CSV UTF-8" (Excel) or convert it, e.g. `iconv -f latin1 -t utf-8 in.csv > out.csv`.',
  );
}

/** The header row decides: the candidate delimiter seen most often outside quotes (comma when none is). */
export function detectDelimiter(text: string): string {
  const end = firstLineEnd(text);
  const header = end === -1 ? text : text.slice(0, end);
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of header) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ",";
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** Index of the first line break outside quotes, or -1. */
function firstLineEnd(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "\n" || ch === "\r")) return i;
  }
  return -1;
}

/**
 * csv-parse's options for our CSV. `relax_quotes` keeps a quote inside an unquoted value as written
 * (`Ada "The Countess" Lovelace`); it also lets text follow a closing quote, which `rtrim` turns back into an
 * error (CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE), at the price of unquoted values losing trailing blanks
 * (every value is trimmed anyway). Blank lines are not skipped by the parser: each one must count as a line.
 */
const PARSE_OPTIONS = {
  bom: true,
  relax_quotes: true,
  rtrim: true,
  relax_column_count: true,
  record_delimiter: ["\r\n", "\n", "\r"],
  max_record_size: MAX_RECORD_BYTES,
} satisfies Options;

/** The user's message for each csv-parse error a file can cause with PARSE_OPTIONS. */
const SYNTAX_ERRORS: Record<string, { message: string; hint: string }> = {
  CSV_QUOTE_NOT_CLOSED: {
    message: "a quoted field starts on this line and never closes (unbalanced quotes)",
    hint: 'Close the quote, or write a quote inside a quoted value as two quotes ("").',
  },
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: {
    message: 'a quote closes a field but more text follows it (write a quote inside a quoted field as "")',
    hint: 'Close the quote, or write a quote inside a quoted value as two quotes ("").',
  },
  CSV_MAX_RECORD_SIZE: {
    message: `a record longer than ${MAX_RECORD_BYTES / 1024 / 1024} MiB (a quote that never closes?)`,
    hint: "Check the quoting around this line.",
  },
};

/**
 * The file's records in the order they come, one array per piece read. Line numbers are counted here, not
 * taken from csv-parse's `info.lines`: that is the line where a record ends, and it counts a `\r\n` inside a
 * quoted value twice. A record starts one line after the previous one ended.
 */
async function* readRecords(
  path: string,
  name: string,
  delimiter: string,
  options: { header?: "keep"; range?: ByteRange; end?: { line: number } },
): AsyncGenerator<CsvRecord[]> {
  const { range } = options;
  const fromStart = (range?.start ?? 0) === 0;
  // Only a part that starts the file has the header (and maybe Excel's "sep=" line).
  let headerSeen = options.header === "keep" || !fromStart;
  let line = 1;
  try {
    for await (const batch of fieldBatches({
      path,
      name,
      delimiter,
      start: range?.start ?? 0,
      end: range?.end,
    })) {
      const out: CsvRecord[] = [];
      for (const fields of batch) {
        const start = line;
        line += 1 + countBreaks(fields);
        // Blank and whitespace-only lines.
        if (fields.length === 1 && fields[0]!.trim() === "") continue;
        // Excel's "sep=;" first line names the delimiter; it is not the header.
        if (fromStart && start === 1 && fields.length <= 2 && /^sep=.?$/i.test(fields.join(delimiter)))
          continue;
        if (!headerSeen) {
          headerSeen = true;
          continue;
        }
        out.push({ line: start, fields });
      }
      if (out.length > 0) yield out;
    }
    if (options.end) options.end.line = line;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Every record before the failing one has been counted: `line` is where the failing one starts.
    const known = SYNTAX_ERRORS[(error as { code?: string }).code ?? ""];
    if (known) throw new CsvSyntaxError(name, line, known.message, known.hint);
    throw new UsageError(`Cannot read ${name}: ${(error as Error).message}`);
  }
}

/** What a reader of records reads: a file's bytes from `start` (where a line starts) to `end` (or its end). */
export interface FilePart {
  path: string;
  /** How messages name the file. */
  name: string;
  delimiter: string;
  start: number;
  end?: number;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * The fields of each record of a part of the file, in batches. Up to the line of
 * the first quote, lines are split at their breaks and fields at the delimiter here; from that line on,
 * csv-parse reads the rest (`parsedBatches`). Text without a quote holds no quoted value, and csv-parse gives
 * exactly these records for it (PARSE_OPTIONS: trailing blanks trimmed, \r\n, \n and \r each end a line;
 * a property test in test/bulk/csv.test.ts holds the two to that). Lines are split here only while they are
 * well below csv-parse's record limit, so that limit is csv-parse's alone. csv-parse's loop over each character was
 * half of the validate-first pass (bench/README.md); most files quote nothing, or little. (Exported for the
 * property test.)
 */
export async function* fieldBatches(part: FilePart): AsyncGenerator<string[][]> {
  const { path, name, delimiter, start, end } = part;
  const file = createReadStream(path, {
    highWaterMark: PIECE_BYTES,
    start,
    ...(end !== undefined ? { end: end - 1 } : {}),
  });
  /** The unfinished last line, and the file offset of its first byte. */
  let rest: Buffer | undefined;
  let at = start;
  let first = true;
  for await (const piece of utf8Only(path, name, start)(file)) {
    let data = rest ? Buffer.concat([rest, piece]) : piece;
    if (first) {
      first = false;
      // csv-parse's `bom`: at the start of what it reads.
      if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
        data = data.subarray(3);
        at += 3;
      }
    }
    const quote = data.indexOf(QUOTE);
    // Whole lines end at the last break (a \r at the very end may be the first half of a \r\n), or, from the
    // first quote on, at the start of its line: csv-parse reads on from there.
    const cut =
      quote !== -1
        ? lineStart(data, quote)
        : lineStart(data, data[data.length - 1] === CR ? data.length - 1 : data.length);
    if (cut > 0) {
      const batch = splitLines(data.toString("utf8", 0, cut), delimiter, false);
      if (batch.length > 0) yield batch;
    }
    rest = cut < data.length ? data.subarray(cut) : undefined;
    at += cut;
    // From a quote's line on, or a line long enough to near csv-parse's record limit (which it then applies,
    // and every line split here is far below), csv-parse reads on.
    if (quote !== -1 || (rest?.length ?? 0) > MAX_RECORD_BYTES / 2) {
      file.destroy();
      yield* parsedBatches({ ...part, start: at });
      return;
    }
  }
  if (rest) yield splitLines(rest.toString("utf8"), delimiter, true);
}

/** Where the line holding byte `before - 1` starts: just after the last line break before `before`. */
function lineStart(data: Buffer, before: number): number {
  if (before === 0) return 0;
  return Math.max(data.lastIndexOf(LF, before - 1), data.lastIndexOf(CR, before - 1)) + 1;
}

/**
 * Records of quote-free text as csv-parse gives them: one per line, fields split at the delimiter, trailing
 * blanks trimmed. The text ends with a line break unless it is the input's end (`last`).
 */
function splitLines(text: string, delimiter: string, last: boolean): string[][] {
  const lines = text.split(LINE_BREAK);
  // After the last break: nothing, or (at the input's end) a last line without a break.
  const n = last && lines[lines.length - 1] !== "" ? lines.length : lines.length - 1;
  const records: string[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const fields = lines[i]!.split(delimiter);
    for (let f = 0; f < fields.length; f++) fields[f] = fields[f]!.trimEnd();
    records[i] = fields;
  }
  return records;
}

/** csv-parse's records of a part of the file, in batches (exported for the test). */
export async function* parsedBatches(part: FilePart): AsyncGenerator<string[][]> {
  const { path, name, delimiter, start, end } = part;
  const parser = parse({ ...PARSE_OPTIONS, delimiter });
  const records = batchesOf(parser);
  const file = createReadStream(path, {
    highWaterMark: PIECE_BYTES,
    start,
    ...(end !== undefined ? { end: end - 1 } : {}),
  });
  pipeline(file, utf8Only(path, name, start), parser, (error) => {
    if (error) records.fail(error);
  });
  try {
    yield* records.batches;
  } finally {
    parser.destroy(); // ends the pipeline when the caller stops early (openCsv reads only the header)
  }
}

/**
 * Whatever the parser has ready at each wake-up, as one array: no await per record. The parser parses the next
 * piece of the file only once its output has been read, so memory holds about one piece's records.
 */
function batchesOf(parser: Parser): { batches: AsyncGenerator<string[][]>; fail(error: Error): void } {
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  parser.on("readable", notify);
  parser.on("end", () => {
    ended = true;
    notify();
  });
  async function* batches(): AsyncGenerator<string[][]> {
    for (;;) {
      const batch: string[][] = [];
      for (let record = parser.read(); record !== null; record = parser.read()) batch.push(record);
      // Records parsed before a failure come first: they may well be where the user looks for it.
      if (batch.length > 0) yield batch;
      else if (failure) throw failure;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return {
    batches: batches(),
    fail(error) {
      failure ??= error;
      notify();
    },
  };
}

/** Passes the file on, refusing it at its first byte that is not UTF-8 (names would arrive mangled). */
function utf8Only(path: string, name: string, start: number) {
  return async function* (pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let carry: Buffer | undefined;
    let offset = start;
    for await (const piece of pieces) {
      const data = carry ? Buffer.concat([carry, piece]) : piece;
      // A character split between two reads waits for the next one.
      const complete = completeUtf8(data);
      if (!isUtf8(data.subarray(0, complete))) {
        throw notUtf8(name, await lineOfOffset(path, offset + firstInvalidUtf8(data.subarray(0, complete))));
      }
      carry = complete < data.length ? Buffer.from(data.subarray(complete)) : undefined;
      offset += complete;
      if (complete > 0) yield data.subarray(0, complete);
    }
    if (carry) throw notUtf8(name, await lineOfOffset(path, offset));
  };
}

/** Line breaks inside a record's values (only a quoted value has any), `\r\n` counting once. */
function countBreaks(fields: string[]): number {
  let n = 0;
  for (const field of fields) {
    if (field.indexOf("\n") === -1 && field.indexOf("\r") === -1) continue;
    n += field.match(/\r\n|\r|\n/g)!.length;
  }
  return n;
}

/** Length of the prefix that ends on a whole UTF-8 sequence (a split multi-byte character is left out). */
function completeUtf8(data: Buffer): number {
  const n = data.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const byte = data[n - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** Offset of the first byte that is not part of a valid UTF-8 sequence (only called when there is one). */
function firstInvalidUtf8(data: Buffer): number {
  let i = 0;
  while (i < data.length) {
    const b = data[i]!;
    const need =
      b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (need === 0) return i;
    if (need > 1 && !isUtf8(data.subarray(i, i + need))) return i;
    i += need;
  }
  return data.length;
}

function lineAt(buffer: Buffer, offset: number): number {
  let line = 1;
  for (let i = buffer.indexOf(10); i !== -1 && i < offset; i = buffer.indexOf(10, i + 1)) line++;
  return line;
}

/** The line of a byte offset, counted again from the start of the file (only on the error path). */
async function lineOfOffset(path: string, offset: number): Promise<number> {
  if (offset === 0) return 1;
  let line = 1;
  for await (const piece of createReadStream(path, { end: offset - 1 })) {
    const buffer = piece as Buffer;
    line += lineAt(buffer, buffer.length) - 1;
  }
  return line;
}
