/**
 * A bulk run's input file opened by what it is: one sheet of an .xlsx workbook (xlsx.ts: its reader, a large
 * library, is loaded only then), else CSV text. Either way the rows come as a CsvInput, for the same row
 * readers (registry.ts).
 */
import { extname } from "node:path";
import { UsageError } from "../../errors.js";
import { type CsvInput, openCsv } from "./csv.js";

/** A workbook is known by its name: `.xlsx` (any case). */
export function isWorkbook(path: string): boolean {
  return extname(path).toLowerCase() === ".xlsx";
}

/** Spreadsheet formats that are not .xlsx: refused with a way out, rather than read as (binary) CSV. */
const OTHER_WORKBOOKS: Record<string, string> = {
  ".xls": "an Excel 97–2003 workbook (.xls)",
  ".xlsm": "a macro-enabled workbook (.xlsm)",
  ".xlsb": "a binary workbook (.xlsb)",
  ".ods": "an OpenDocument spreadsheet (.ods)",
  ".numbers": "a Numbers document",
};

export async function openRows(
  path: string,
  options: { delimiter?: string; sheet?: string } = {},
): Promise<CsvInput> {
  if (isWorkbook(path)) {
    if (options.delimiter !== undefined) {
      throw new UsageError(
        `--delimiter is for CSV input; ${path} is a workbook`,
        "Leave --delimiter out: a sheet's cells need none.",
      );
    }
    const { openSheet } = await import("./xlsx.js");
    return openSheet(path, { sheet: options.sheet });
  }
  const other = OTHER_WORKBOOKS[extname(path).toLowerCase()];
  if (other) {
    throw new UsageError(
      `${path} is ${other}: bulk input is CSV (UTF-8) or an .xlsx workbook`,
      "Save it from the spreadsheet as an Excel Workbook (.xlsx), or export the sheet as CSV (UTF-8).",
    );
  }
  if (options.sheet !== undefined) throw sheetWithoutWorkbook(path);
  return openCsv(path, { delimiter: options.delimiter });
}

/** `--sheet` names a sheet of an .xlsx workbook; any other input has none. */
export function sheetWithoutWorkbook(path: string): UsageError {
  return new UsageError(
    `--sheet is for .xlsx input; ${path} is not a workbook (its name does not end in .xlsx)`,
    "Leave --sheet out, or give the .xlsx workbook itself.",
  );
}
