/**
 * The reader of .xlsx files unpacks every part whole and builds the sheet as one array as wide as its widest
 * row and as long as its last: a crafted workbook of a few KB (one cell at XFD1048576, a part that inflates to
 * 2 GiB) exhausts memory. So before it sees the file, this module reads the archive's directory (bounded, no
 * ZIP64), inflates only the parts the reader needs as a stream counting the bytes they really give, scans the
 * sheet's rows and cell addresses as it inflates, and hands the reader a new archive of those parts alone.
 * Every refusal is a usage error: CSV input streams at any size.
 */
import { createReadStream } from "node:fs";
import { createInflateRaw } from "node:zlib";
import { UsageError } from "../../errors.js";
import { readAtMost } from "../../files.js";
import { columnName } from "./columns.js";

/** Entries of the archive's directory: a workbook has a few dozen. */
const MAX_ENTRIES = 10_000;
/** The parts read, inflated, in all: a sheet of MAX_ROWS rows of a dozen columns takes ~40 MiB. */
const MAX_PARTS_BYTES = 64 * 1024 * 1024;
/** Rows of a sheet below its header: beyond, the reader (which holds the sheet whole) would pass ~300 MiB. */
const MAX_ROWS = 100_000;
/** Last row × last column of the cells present. */
const MAX_CELLS = 2_000_000;
/** A tag of the sheet's XML: a cell's or a row's is a few dozen bytes. */
const MAX_TAG = 64 * 1024;
/** Elements within elements: a cell's text is 7 deep; the reader's tree of a part nested millions deep passes 300 MiB. */
const MAX_DEPTH = 256;
/** The workbook file itself, read into memory to be taken apart. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

interface Entry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Where the compressed bytes start. */
  dataStart: number;
}

const refuse = (name: string, why: string) =>
  new UsageError(
    `${name}: ${why}`,
    "Export the sheet as CSV (UTF-8): CSV input is streamed, at any size. Nothing was sent.",
  );

/**
 * The workbook reduced to the parts the reader needs, within the limits, and the names of its sheets in order;
 * undefined when it is no ZIP archive.
 */
export async function guardWorkbook(
  path: string,
  name: string,
  sheet: string | undefined,
): Promise<{ archive: Buffer; sheets: string[] } | undefined> {
  const file = await readAtMost(createReadStream(path, { end: MAX_FILE_BYTES }), MAX_FILE_BYTES);
  if (file === undefined) {
    throw refuse(
      name,
      `the workbook is larger than ${MAX_FILE_BYTES / 1048576} MiB; assess reads workbooks up to that size`,
    );
  }
  const entries = centralDirectory(file, name);
  if (entries === undefined) return undefined;
  const byName = new Map(entries.map((e) => [e.name, e]));
  const budget = { left: MAX_PARTS_BYTES };

  const needed: Entry[] = [];
  const text = async (part: string): Promise<string | undefined> => {
    const entry = byName.get(part);
    if (entry === undefined || needed.includes(entry)) return undefined;
    needed.push(entry);
    const chunks: Buffer[] = [];
    await inflate(file, entry, name, budget, (chunk) => void chunks.push(chunk));
    const xml = Buffer.concat(chunks).toString("utf8");
    depthScan(name, part)(xml);
    return xml;
  };
  const rels = (await text("xl/_rels/workbook.xml.rels")) ?? "";
  const workbook = (await text("xl/workbook.xml")) ?? "";
  const targets = new Map<string, { type: string; target: string }>();
  for (const tag of rels.match(/<Relationship\b[^>]*>/g) ?? []) {
    const id = attribute(tag, "Id");
    const target = attribute(tag, "Target");
    if (id && target) targets.set(id, { type: attribute(tag, "Type") ?? "", target: partPath(target) });
  }
  // Where the relationships name them, else where the reader looks for them.
  for (const kind of ["sharedStrings", "styles"]) {
    const named = [...targets.values()].find((t) => t.type.endsWith(`/${kind}`));
    await text(named?.target ?? `xl/${kind}.xml`);
  }

  // The sheet read: --sheet's (its case aside, as the reader is asked again: xlsx.ts), else the first.
  const sheets = (workbook.match(/<(?:\w+:)?sheet\b[^>]*>/g) ?? []).map((tag) => ({
    name: unescapeXml(attribute(tag, "name") ?? ""),
    id: attribute(tag, "r:id") ?? attribute(tag, "id") ?? "",
  }));
  const wanted =
    sheet === undefined
      ? sheets[0]
      : (sheets.find((s) => s.name === sheet) ??
        sheets.find((s) => s.name.toLowerCase() === sheet.trim().toLowerCase()));
  const sheetPart = wanted === undefined ? undefined : targets.get(wanted.id)?.target;
  const sheetEntry = sheetPart === undefined ? undefined : byName.get(sheetPart);
  if (sheetEntry !== undefined) {
    needed.push(sheetEntry);
    await inflate(file, sheetEntry, name, budget, sheetScan(name, wanted!.name, sheetEntry.name));
  }
  return { archive: archiveOf(file, needed), sheets: sheets.map((s) => s.name) };
}

/** A part's path in the archive from a relationship's target (`worksheets/sheet1.xml`, `/xl/styles.xml`). */
function partPath(target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts: string[] = ["xl"];
  for (const piece of target.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== "." && piece !== "") parts.push(piece);
  }
  return parts.join("/");
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name.replace(":", "\\:")}="([^"]*)"`).exec(tag)?.[1];
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e]!,
  );
}

/** The entries of the archive's central directory; undefined when the file is no ZIP archive. */
function centralDirectory(file: Buffer, name: string): Entry[] | undefined {
  // The end record is in the last 22 bytes + a comment of up to 65,535.
  let end = -1;
  for (let i = file.length - 22; i >= Math.max(0, file.length - 22 - 65_535); i--) {
    if (file.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end === -1) return undefined;
  const count = file.readUInt16LE(end + 10);
  const size = file.readUInt32LE(end + 12);
  const offset = file.readUInt32LE(end + 16);
  const broken = (why: string) => refuse(name, `the workbook's archive is damaged or crafted (${why})`);
  if (count === 0xffff || offset === 0xffffffff) throw broken("ZIP64, which no workbook of this size needs");
  if (count > MAX_ENTRIES) throw broken(`${count} entries`);
  if (offset + size > end) throw broken("its directory lies outside the file");
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || file.readUInt32LE(at) !== 0x02014b50) throw broken("a directory entry is cut short");
    const nameLength = file.readUInt16LE(at + 28);
    const extra = file.readUInt16LE(at + 30) + file.readUInt16LE(at + 32);
    const local = file.readUInt32LE(at + 42);
    const entry = {
      name: file.toString("utf8", at + 46, at + 46 + nameLength),
      method: file.readUInt16LE(at + 10),
      crc: file.readUInt32LE(at + 16),
      compressedSize: file.readUInt32LE(at + 20),
      size: file.readUInt32LE(at + 24),
      dataStart: 0,
    };
    if (local + 30 > file.length || file.readUInt32LE(local) !== 0x04034b50)
      throw broken(`no data for ${entry.name}`);
    entry.dataStart = local + 30 + file.readUInt16LE(local + 26) + file.readUInt16LE(local + 28);
    if (entry.dataStart + entry.compressedSize > file.length)
      throw broken(`${entry.name} runs past the end of the file`);
    if (entry.method !== 0 && entry.method !== 8)
      throw broken(`${entry.name} is compressed with method ${entry.method}`);
    entries.push(entry);
    at += 46 + nameLength + extra;
  }
  return entries;
}

/** Inflates one entry as a stream, each chunk to `onChunk`, the whole archive's budget of bytes counted. */
async function inflate(
  file: Buffer,
  entry: Entry,
  name: string,
  budget: { left: number },
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
  const data = file.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  const over = () =>
    refuse(
      name,
      `its parts inflate to more than ${MAX_PARTS_BYTES / 1048576} MiB (${entry.name}); assess reads workbooks up to that size`,
    );
  if (entry.size > budget.left) throw over();
  // Method 0: stored as it is.
  const stream = entry.method === 0 ? undefined : createInflateRaw();
  stream?.end(data);
  const chunks: AsyncIterable<Buffer> | Buffer[] = stream ?? [data];
  try {
    for await (const chunk of chunks) {
      budget.left -= chunk.length;
      if (budget.left < 0) throw over();
      onChunk(chunk);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw refuse(name, `the workbook's part ${entry.name} cannot be inflated (${(error as Error).message})`);
  } finally {
    stream?.destroy();
  }
}

/** Counts a sheet's rows and finds its last row and column as its XML streams by, chunk after chunk. */
function sheetScan(name: string, sheet: string, part: string): (chunk: Buffer) => void {
  const where = `sheet "${sheet}"`;
  const nesting = depthScan(name, part);
  const decoder = new TextDecoder();
  let carry = "";
  let rows = 0;
  let cells = 0;
  let lastRow = 0;
  let lastColumn = 0;
  return (chunk) => {
    const text = carry + decoder.decode(chunk, { stream: true });
    // A tag still open at the chunk's end is scanned with the next chunk.
    const cut = text.lastIndexOf("<");
    const open = cut !== -1 && text.indexOf(">", cut) === -1;
    carry = open ? text.slice(cut) : "";
    if (carry.length > MAX_TAG) throw refuse(name, `${where} holds a tag longer than ${MAX_TAG / 1024} KiB`);
    const tags = open ? text.slice(0, cut) : text;
    nesting(tags);
    for (const match of tags.matchAll(/<(?:\w+:)?(row|c)\b([^>]*)>/g)) {
      const address = /\sr="([A-Z]*)(\d+)"/.exec(match[2]!);
      if (match[1] === "c") {
        cells++;
        if (address) {
          lastColumn = Math.max(lastColumn, columnNumber(address[1]!));
          lastRow = Math.max(lastRow, Number(address[2]));
        }
      } else {
        rows++;
        lastRow = address ? Math.max(lastRow, Number(address[2])) : lastRow + 1;
      }
      if (rows > MAX_ROWS + 1 || lastRow > MAX_ROWS + 1) {
        throw refuse(
          name,
          `${where} has more than ${MAX_ROWS.toLocaleString("en-US")} rows below its header (row ${lastRow.toLocaleString("en-US")} found); assess reads workbooks up to that many`,
        );
      }
      if (lastRow * lastColumn > MAX_CELLS || cells > MAX_CELLS) {
        throw refuse(
          name,
          `${where} uses a range of ${lastRow.toLocaleString("en-US")} rows × ${lastColumn.toLocaleString("en-US")} columns (up to ${columnName(lastColumn)}${lastRow}), more than ${MAX_CELLS.toLocaleString("en-US")} cells`,
        );
      }
    }
  };
}

/** Refuses a part's XML, given in pieces of whole tags, once its elements nest deeper than MAX_DEPTH. */
function depthScan(name: string, part: string): (xml: string) => void {
  let depth = 0;
  return (xml) => {
    // An opening tag goes one deeper, a closing one back; a declaration, comment or empty element neither.
    for (const match of xml.matchAll(/<([/?!]?)[^>]*?(\/?)>/g)) {
      if (match[1] === "/") depth--;
      else if (match[1] === "" && match[2] === "") depth++;
      if (depth > MAX_DEPTH)
        throw refuse(name, `its part ${part} nests elements more than ${MAX_DEPTH} deep`);
    }
  };
}

/** A → 1, Z → 26, AA → 27, XFD → 16,384. */
function columnNumber(letters: string): number {
  let n = 0;
  for (const c of letters) n = n * 26 + (c.charCodeAt(0) - 64);
  return n;
}

/** A ZIP archive of `entries` alone, their compressed bytes copied from `file`. */
function archiveOf(file: Buffer, entries: Entry[]): Buffer {
  const pieces: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    // The fields both headers share, from "version needed" to the name's length (times and extras zero).
    const shared = Buffer.alloc(26);
    shared.writeUInt16LE(20, 0);
    shared.writeUInt16LE(0x0800, 2); // UTF-8 names; sizes here, no data descriptor
    shared.writeUInt16LE(entry.method, 4);
    shared.writeUInt32LE(entry.crc, 10);
    shared.writeUInt32LE(entry.compressedSize, 14);
    shared.writeUInt32LE(entry.size, 18);
    shared.writeUInt16LE(name.length, 22);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    shared.copy(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    shared.copy(central, 6);
    central.writeUInt32LE(offset, 42);
    const data = file.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
    pieces.push(local, name, data);
    directory.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const size = directory.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...pieces, ...directory, end]);
}
