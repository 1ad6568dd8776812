/**
 * Bulk input from a spreadsheet: one sheet of an .xlsx workbook (the first, or the one `--sheet` names), read
 * as a CsvInput whose records are the sheet's rows, so that the header rules, the row checks, the ledger and
 * the chunks are those of CSV input. A record's `line` is the row's number in the sheet, as the spreadsheet
 * shows it; blank rows are skipped, as blank lines of a CSV file are.
 *
 * Each cell becomes the text a CSV export of the sheet would carry in that column:
 * - text as written (blanks around it trimmed, as the row checks trim every value anyway);
 * - a cell typed as a date (a serial number with a date format, in either of the 1900 and 1904 date systems
 *   of the workbook) as `YYYY-MM-DD`, or `YYYY-MM-DDTHH:mm:ss` when it has a time of day: the forms a date
 *   column of CSV input takes (employees' hireDate and exitDate), read as UTC as there;
 * - a number as Excel's General format shows it (15 significant digits: `1001`, `0.3`, not
 *   `0.30000000000000004`); other number formats (`0.00`, currencies) are not applied;
 * - TRUE and FALSE; an error cell (`#N/A`) and a formula without a computed value as empty.
 *
 * The reader (read-excel-file) is loaded with this module, and this module only for an .xlsx input (open.ts
 * imports it dynamically): the build puts both in a chunk of their own. It parses the sheet whole, not as a
 * stream, so the workbook is checked first and handed to it reduced to the parts it needs (xlsx-guard.ts:
 * 64 MiB of parts, 100,000 rows, 2,000,000 cells of used range at most), and no cell may hold more than
 * 4,096 characters (a usage error naming the cell). Beyond those, export the sheet as CSV, which streams. Measured here, `employees upsert` of six columns against a
 * local sandbox: 100,000 rows in 3.6 s at 261 MiB peak RSS (CSV: 2.4 s, 106 MiB); 300,000 in 14.6 s at
 * 634 MiB (CSV: 8.8 s, 116 MiB). `invite bulk` of 100,000 rows: 2.1 s, 180 MiB (CSV: 1.0 s, 103 MiB).
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import readXlsxFile from "read-excel-file/node";
import { UsageError } from "../../errors.js";
import { unreadable } from "../../files.js";
import type { CsvInput, CsvRecord } from "./csv.js";
import { columnName, guardWorkbook } from "./xlsx-guard.js";

/** A cell's text at most: an e-mail, a name or a department is far shorter; 2 MiB ones exhaust memory. */
export const MAX_CELL_CHARS = 4096;

/** Records handed on at a time: as CSV input hands on those of one piece of the file. */
const BATCH = 1024;

/** The one sheet the run reads, as records of text cells. */
export async function openSheet(path: string, options: { sheet?: string } = {}): Promise<CsvInput> {
  const name = path.length > 60 ? basename(path) : path;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new UsageError(`${name} is a directory, not a workbook`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(name, error);
  }
  const { sheet, rows } = await readRows(path, name, options.sheet);
  const place = `${name}, sheet "${sheet}"`;
  checkCellSizes(rows, place);
  const headerIndex = rows.findIndex((row) => !isBlank(row));
  if (headerIndex === -1) {
    throw new UsageError(
      `${place}: the sheet is empty: nothing to send`,
      "Its first row names the columns (for example: email, name); each following row is one item.",
    );
  }
  const header = rows[headerIndex]!.map((cell) => cellText(cell).trim());
  // The reader pads every row to the sheet's widest; the header names the columns up to its last named one,
  // so that a value further right is found (as a CSV row with more fields than its header is).
  while (header.length > 0 && header[header.length - 1] === "") header.pop();
  let consumed = false;
  const input: CsvInput = {
    path,
    name,
    sheet,
    // The delimiter of the rejects file, which is CSV.
    delimiter: ",",
    header,
    headerLine: headerIndex + 1,
    // The rows are read once (the validate-first pass spools them: speedups/spool.ts) and let go as they are,
    // so that the sheet's cells and their text are not both in memory whole.
    async *batches() {
      if (consumed) throw new Error(`the rows of ${place} are read once`);
      consumed = true;
      let batch: CsvRecord[] = [];
      for (let i = headerIndex + 1; i < rows.length; i++) {
        const row = rows[i]!;
        rows[i] = EMPTY;
        if (isBlank(row)) continue;
        batch.push({ line: i + 1, fields: row.map(cellText) });
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
  };
  return input;
}

type Cell = unknown;
const EMPTY: Cell[] = [];

/**
 * Refuses the sheet at its first cell longer than MAX_CELL_CHARS, naming it, before any row is handed on: one
 * shared string of 2 MiB used by 2,000 rows is 4 GB of row text.
 */
function checkCellSizes(rows: Cell[][], place: string): void {
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let c = 0; c < row.length; c++) {
      const cell = row[c];
      if (typeof cell === "string" && cell.length > MAX_CELL_CHARS) {
        throw new UsageError(
          `${place}, cell ${columnName(c + 1)}${r + 1}: ${cell.length.toLocaleString("en-US")} characters, more than the ${MAX_CELL_CHARS} a cell may hold`,
          "Shorten or clear that cell (no field of an invitation or an employee is that long); nothing was sent.",
        );
      }
    }
  }
}

async function readRows(
  path: string,
  name: string,
  wanted: string | undefined,
): Promise<{ sheet: string; rows: Cell[][] }> {
  let sheets: Array<{ sheet: string; data: unknown[] }>;
  // Only the parts needed, within the limits of xlsx-guard.ts; a file that is no archive goes to the reader
  // as it is, which says what it is.
  const workbook = await guardWorkbook(path, name, wanted);
  try {
    // `sheets` has the reader parse the one sheet wanted (by name, or the first), not all of them.
    sheets = (await readXlsxFile(workbook ?? path, { sheets: [wanted ?? 1] } as Parameters<
      typeof readXlsxFile
    >[1])) as Array<{
      sheet: string;
      data: unknown[];
    }>;
  } catch (error) {
    // Sheet names are unique whatever their case, as in the spreadsheet: `--sheet staff` finds "Staff".
    const sheets = (error as { name?: string; sheets?: string[] }).sheets;
    const same = sheets?.filter((s) => s.toLowerCase() === wanted?.trim().toLowerCase());
    if (same?.length === 1 && same[0] !== wanted) return readRows(path, name, same[0]);
    throw readError(name, wanted, error);
  }
  const found = sheets.find((s) => wanted === undefined || s.sheet === wanted) ?? sheets[0];
  if (!found) throw new UsageError(`${name}: the workbook has no sheet`);
  return { sheet: found.sheet, rows: found.data as Cell[][] };
}

/** What the reader's errors mean to the user: all of them usage errors (exit 2), nothing having been sent. */
function readError(name: string, wanted: string | undefined, error: unknown): UsageError {
  const e = error as Error & { code?: string; sheets?: string[] };
  // The reader recurses once per piece of the sheet it parses: ~1,000,000 rows overflow the stack.
  if (error instanceof RangeError || e.cause instanceof RangeError) {
    return new UsageError(
      `${name}: the sheet is too large to read as a workbook (${e.message})`,
      "Export the sheet as CSV (UTF-8): CSV input is streamed, at any size.",
    );
  }
  if (e.name === "SheetNotFoundError") {
    const present = (e.sheets ?? []).map((s) => JSON.stringify(s)).join(", ");
    return new UsageError(
      `${name} has no sheet named "${wanted}"; its sheets are: ${present}`,
      "Name one of them with --sheet (the name as its tab shows it), or leave --sheet out to read the first.",
    );
  }
  if (e.name === "InvalidInputError") {
    const why =
      e.code === "XLS_FILE_NOT_SUPPORTED"
        ? "an old Excel 97–2003 (.xls) workbook, not an .xlsx one"
        : e.code === "NO_DATA"
          ? "an empty file"
          : "not an .xlsx workbook (it is no ZIP archive of a workbook's parts)";
    return new UsageError(
      `${name}: ${why}`,
      "Save it from the spreadsheet as an Excel Workbook (.xlsx), or export the sheet as CSV (UTF-8).",
    );
  }
  return new UsageError(
    `Cannot read ${name} as a workbook: ${e.message ?? String(error)}`,
    "Save it again from the spreadsheet as an Excel Workbook (.xlsx), or export the sheet as CSV (UTF-8).",
  );
}

function isBlank(row: Cell[]): boolean {
  return row.every(
    (cell) => cell === null || cell === undefined || (typeof cell === "string" && cell.trim() === ""),
  );
}

/** A cell as the text a CSV export of its sheet would carry (see the module's comment). */
export function cellText(cell: Cell): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell;
  if (typeof cell === "number") return generalNumber(cell);
  if (typeof cell === "boolean") return cell ? "TRUE" : "FALSE";
  if (cell instanceof Date) return dateText(cell);
  return String(cell);
}

/** Excel's General format: at most 15 significant digits, no exponent below 1e15. */
export function generalNumber(value: number): string {
  if (!Number.isFinite(value)) return "";
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  return String(Number(value.toPrecision(15)));
}

/**
 * A date cell (the reader gives it as a Date at UTC: the sheet's date and time with no zone) as a CSV date
 * column carries it, to the second: a serial number of a time of day rarely is a whole number of seconds.
 */
export function dateText(date: Date): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) return "";
  const iso = new Date(Math.round(ms / 1000) * 1000).toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19);
}
