/**
 * Streaming CSV input for bulk runs: UTF-8 (BOM or not), `,` `;` or tab detected from the header row, quoted
 * fields, and the 1-based line where each record starts (`file.csv:12`). Read in 16 KiB pieces with
 * backpressure; lines are split here until the first quote, csv-parse parses from that line on.
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
  line: number;
  fields: string[];
}

/** An opened CSV input as data: enough to read it again in a worker thread without sniffing. */
export interface CsvSource {
  path: string;
  /** How messages name the file. */
  name: string;
  delimiter: string;
  /** Header cells, trimmed. */
  header: string[];
  headerLine: number;
  /** A spreadsheet's sheet (xlsx.ts): messages then say `file.xlsx, sheet "Staff", row 12`. */
  sheet?: string;
  /** Every sheet of that workbook, in order: a header not found names them (another may hold the rows). */
  sheets?: string[];
}

/** Bytes [start, end) starting on a record boundary; its lines are counted from its start. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface CsvInput extends CsvSource {
  /** The data records, in batches. */
  batches(): AsyncGenerator<CsvRecord[]>;
}

/** A syntax error at a line (relative to the part read, for a ByteRange). */
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
/** Larger pieces parse no faster and their records outlive young-generation collections (more peak RSS). */
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
  options: { delimiter?: string; name?: string; example?: string } = {},
): Promise<CsvInput> {
  const name = options.name ?? displayName(path);
  const example = options.example ?? "email,name";
  const head = await sniff(path, name, example);
  const excel = /^sep=(.)\r?\n/i.exec(head)?.[1];
  const delimiter = options.delimiter ?? excel ?? detectDelimiter(head);
  // The first record is the header (a batch is never empty).
  for await (const [first] of readRecords({ path, name, delimiter, start: 0 }, { header: "keep" })) {
    const header = first!.fields.map((cell) => cell.trim());
    return csvInput({ path, name, delimiter, header, headerLine: first!.line });
  }
  throw emptyFile(name, example);
}

/**
 * An input opened before (by openCsv, maybe in another thread), or a part of it: `end` receives the line where
 * a record after the part's last one would start.
 */
export function csvInput(
  source: CsvSource,
  part: { range?: ByteRange; end?: { line: number } } = {},
): CsvInput {
  const { range, end } = part;
  return {
    ...source,
    batches: () => readRecords({ ...source, start: range?.start ?? 0, end: range?.end }, { end }),
  };
}

/** Just after the first line break from the middle on (the first half's reader finds out if it was quoted). */
export async function midpoint(path: string, size: number): Promise<number | undefined> {
  const from = Math.floor(size / 2);
  const nl = (await readBytes(path, from, Math.min(SNIFF_BYTES, size))).indexOf(10);
  return nl === -1 || from + nl + 1 >= size ? undefined : from + nl + 1;
}

/** Up to `length` bytes of the file from `position`. */
export async function readBytes(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The size of an input file; a folder, or a file that cannot be read, is a usage error. */
export async function sizeOf(path: string, name: string, what: string, stdin = false): Promise<number> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new UsageError(`${name} is a directory, not ${what}`);
    return info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(name, error, { stdin });
  }
}

/** How messages name a file: its path, or its base name when the path is long. */
export function displayName(path: string): string {
  return path.length > 60 ? basename(path) : path;
}

/** The first 64 KiB, refusing missing, empty, binary and non-UTF-8 files. */
async function sniff(path: string, name: string, example: string): Promise<string> {
  const size = await sizeOf(path, name, "a CSV file", true);
  if (size === 0) throw emptyFile(name, example);
  const buffer = await readBytes(path, 0, Math.min(size, SNIFF_BYTES));
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
  const invalid = firstInvalidUtf8(buffer.subarray(0, complete));
  if (invalid !== -1) throw notUtf8(name, lineAt(buffer, invalid));
  const text = buffer.toString("utf8", 0, complete).replace(/^\uFEFF/, "");
  if (size > SNIFF_BYTES && firstLineEnd(text) === -1) {
    throw new UsageError(
      `${name}:1: the first line is longer than ${SNIFF_BYTES / 1024} KiB: not a CSV file with a header row`,
      "The first row must name the columns (for example: email,name).",
    );
  }
  return text;
}

/** A header and no data rows: a usage error, nothing to send. */
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
  const unquoted = text.slice(0, end === -1 ? undefined : end).replace(/"[^"]*"?/g, "");
  const count = (delimiter: string) => unquoted.split(delimiter).length;
  return DELIMITERS.reduce((best, d) => (count(d) > count(best) ? d : best), ",");
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
 * `relax_quotes` keeps `Ada "The Countess" Lovelace` as written; `rtrim` makes text after a closing quote an
 * error again. Blank lines are not skipped by the parser: each must count as a line.
 */
const PARSE_OPTIONS = {
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

/** Records per piece read. Lines are counted here: csv-parse's `info.lines` counts a quoted `\r\n` twice. */
async function* readRecords(
  part: FilePart,
  options: { header?: "keep"; end?: { line: number } } = {},
): AsyncGenerator<CsvRecord[]> {
  const { name, delimiter } = part;
  const fromStart = part.start === 0;
  // Only a part that starts the file has the header (and maybe Excel's "sep=" line).
  let headerSeen = options.header === "keep" || !fromStart;
  let line = 1;
  try {
    for await (const batch of fieldBatches(part)) {
      const out: CsvRecord[] = [];
      for (const fields of batch) {
        const start = line;
        line += 1 + countBreaks(fields);
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
    const known = SYNTAX_ERRORS[(error as { code?: string }).code ?? ""];
    if (known) throw new CsvSyntaxError(name, line, known.message, known.hint);
    throw new UsageError(`Cannot read ${name}: ${(error as Error).message}`);
  }
}

/** A file's bytes from `start` (where a line starts) to `end` (or its end). */
type FilePart = Pick<CsvSource, "path" | "name" | "delimiter"> & { start: number; end?: number };

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * The records of a part of the file, in batches: split here up to the line of the first quote (quote-free text
 * gives exactly csv-parse's records: a property test holds the two to that; csv-parse's per-character loop was
 * half of the check), then parsed by csv-parse (`parsedBatches`). Exported for that test.
 */
export async function* fieldBatches(part: FilePart): AsyncGenerator<string[][]> {
  const { path, name, delimiter, start } = part;
  const file = readPart(part);
  /** The unfinished last line; `at`: the file offset of its first byte. */
  let rest: Buffer | undefined;
  let at = start;
  for await (const piece of utf8Only(path, name, start)(file)) {
    let data = rest ? Buffer.concat([rest, piece]) : piece;
    // Only the file's first bytes can be a BOM: a part from a later line keeps a U+FEFF as text, as one pass does.
    if (at === 0 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
      data = data.subarray(3);
      at = 3;
    }
    const quote = data.indexOf(QUOTE);
    // Whole lines end at the last break (a final \r may be half a \r\n), or at the start of the first quote's line.
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
    // A quote's line, or a line nearing the record limit (csv-parse's to apply): csv-parse reads on.
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

/** Quote-free text's records as csv-parse gives them; it ends with a line break unless `last`. */
function splitLines(text: string, delimiter: string, last: boolean): string[][] {
  const lines = text.split(LINE_BREAK);
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
  const parser = parse({ ...PARSE_OPTIONS, bom: part.start === 0, delimiter: part.delimiter });
  const records = batchesOf(parser);
  pipeline(readPart(part), utf8Only(part.path, part.name, part.start), parser, (error) => {
    if (error) records.fail(error);
  });
  try {
    yield* records.batches;
  } finally {
    parser.destroy(); // ends the pipeline when the caller stops early (openCsv reads only the header)
  }
}

function readPart({ path, start, end }: FilePart) {
  return createReadStream(path, {
    highWaterMark: PIECE_BYTES,
    start,
    ...(end !== undefined ? { end: end - 1 } : {}),
  });
}

/** What the parser has ready at each wake-up, as one array (no await per record; about one piece in memory). */
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
      // Records parsed before a failure come first.
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
      const invalid = firstInvalidUtf8(data.subarray(0, complete));
      if (invalid !== -1) throw notUtf8(name, await lineOfOffset(path, offset + invalid));
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

/** Length of the prefix that ends on a whole UTF-8 sequence. */
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

/** Offset of the first byte that is not part of a valid UTF-8 sequence, or -1 when all are. */
function firstInvalidUtf8(data: Buffer): number {
  if (isUtf8(data)) return -1;
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

/** The line of a byte offset, counted again from the start of the file (error path only). */
async function lineOfOffset(path: string, offset: number): Promise<number> {
  if (offset === 0) return 1;
  let line = 1;
  for await (const piece of createReadStream(path, { end: offset - 1 })) {
    const buffer = piece as Buffer;
    line += lineAt(buffer, buffer.length) - 1;
  }
  return line;
}
