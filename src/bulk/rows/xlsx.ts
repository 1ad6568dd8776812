/**
 * Bulk input from one sheet of an .xlsx workbook (the first, or `--sheet`'s), read as a CsvInput whose records
 * are its rows (`line`: the row's number; blank rows skipped). Each cell becomes the text a CSV export would
 * carry: text as written, a date as `YYYY-MM-DD` (or `YYYY-MM-DDTHH:mm:ss`, UTC), a number as Excel's General
 * format shows it, TRUE/FALSE, an error or uncomputed formula as empty. The reader (loaded only for .xlsx
 * input) holds the sheet whole, so the workbook is checked first (xlsx-guard.ts) and no cell may pass
 * MAX_CELL_CHARS; beyond those limits, CSV streams.
 */
import readXlsxFile from "read-excel-file/node";
import { UsageError } from "../../errors.js";
import { columnName, inputLabel, otherSheets } from "./columns.js";
import { type CsvInput, type CsvRecord, displayName, sizeOf } from "./csv.js";
import { guardWorkbook } from "./xlsx-guard.js";

/** A cell's text at most: an e-mail, a name or a department is far shorter; 2 MiB ones exhaust memory. */
const MAX_CELL_CHARS = 4096;

/** Records handed on at a time. */
const BATCH = 1024;

/** The one sheet the run reads, as records of text cells. */
export async function openSheet(path: string, options: { sheet?: string } = {}): Promise<CsvInput> {
  const name = displayName(path);
  await sizeOf(path, name, "a workbook");
  const { sheet, sheets, data: rows } = await readRows(path, name, options.sheet);
  const place = inputLabel({ name, sheet });
  checkCellSizes(rows, place);
  const headerIndex = rows.findIndex((row) => !isBlank(row));
  if (headerIndex === -1) {
    throw new UsageError(
      `${place}: the sheet is empty: nothing to send`,
      `Its first row names the columns (for example: email, name); each following row is one item.${otherSheets({ name, sheet, sheets })}`,
    );
  }
  const header = rows[headerIndex]!.map((cell) => cellText(cell).trim());
  // Rows are padded to the widest: the header ends at its last named column, so a value further right is found.
  while (header.length > 0 && header[header.length - 1] === "") header.pop();
  let consumed = false;
  return {
    path,
    name,
    sheet,
    sheets,
    delimiter: ",", // the rejects file's
    header,
    headerLine: headerIndex + 1,
    // Read once (the check spools them) and let go as read: not the cells and their text both in memory.
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
}

type Cell = unknown;
type Sheet = { sheet: string; data: Cell[][]; sheets?: string[] };
const EMPTY: Cell[] = [];

/** Refuses the first cell longer than MAX_CELL_CHARS (one 2 MiB shared string in 2,000 rows is 4 GB of text). */
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

/** The one sheet wanted (the first without --sheet), parsed alone; the reader answers it or throws. */
async function readRows(path: string, name: string, wanted: string | undefined): Promise<Sheet> {
  // A file that is no archive goes to the reader as it is, which says what it is.
  const workbook = await guardWorkbook(path, name, wanted);
  let found: Sheet | undefined;
  try {
    const options = { sheets: [wanted ?? 1] } as Parameters<typeof readXlsxFile>[1];
    [found] = (await readXlsxFile(workbook?.archive ?? path, options)) as Sheet[];
  } catch (error) {
    // Sheet names are unique whatever their case, as in the spreadsheet: `--sheet staff` finds "Staff".
    const sheets = (error as { name?: string; sheets?: string[] }).sheets;
    const same = sheets?.filter((s) => s.toLowerCase() === wanted?.trim().toLowerCase());
    if (same?.length === 1 && same[0] !== wanted) return readRows(path, name, same[0]);
    throw readError(name, wanted, error);
  }
  // The reader answers the sheet asked for or throws; should it answer nothing, a refusal still, not a crash.
  if (!found) throw new UsageError(`${name}: the workbook has no sheet`);
  return { ...found, sheets: workbook?.sheets };
}

/** The reader's errors as usage errors. */
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

/** A cell as the text a CSV export of its sheet would carry. */
function cellText(cell: Cell): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell;
  if (typeof cell === "boolean") return cell ? "TRUE" : "FALSE";
  // Excel's General format: at most 15 significant digits.
  if (typeof cell === "number") return Number.isFinite(cell) ? String(Number(cell.toPrecision(15))) : "";
  if (cell instanceof Date) {
    // A Date at UTC (from the sheet's zoneless time), rounded to the second.
    if (Number.isNaN(cell.getTime())) return "";
    const iso = new Date(Math.round(cell.getTime() / 1000) * 1000).toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 19);
  }
  return String(cell);
}
