/**
 * A bulk run's input opened by what it is: one sheet of an .xlsx workbook (its large reader loaded only then),
 * else CSV text; either way a CsvInput. `-` is standard input.
 */
import { extname } from "node:path";
import type { Readable } from "node:stream";
import { UsageError } from "../../errors.js";
import { stdinToFile } from "../../files.js";
import { type CsvInput, openCsv, readBytes } from "./csv.js";

export function isWorkbook(path: string): boolean {
  return extname(path).toLowerCase() === ".xlsx";
}

/** Spreadsheets that are not .xlsx: refused with a way out rather than read as CSV. */
const OTHER_WORKBOOKS: Record<string, string> = {
  ".xls": "an Excel 97–2003 workbook (.xls)",
  ".xlsm": "a macro-enabled workbook (.xlsm)",
  ".xlsb": "a binary workbook (.xlsb)",
  ".ods": "an OpenDocument spreadsheet (.ods)",
  ".numbers": "a Numbers document",
};

export async function openRows(
  path: string,
  options: { delimiter?: string; sheet?: string; name?: string; example?: string } = {},
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
  if (options.sheet !== undefined) throw sheetWithoutWorkbook(options.name ?? path);
  return openCsv(path, { delimiter: options.delimiter, name: options.name, example: options.example });
}

/** A bulk run's input: a file, or `-` for standard input. */
export interface InputFile {
  /** The file, or a private temporary copy of standard input. */
  path: string;
  /** How messages name it: the file as given, or "stdin". */
  name: string;
  /** What the default rejects file is named after: the file, or stdin.csv (stdin.json). */
  rejectsBeside: string;
  /** A JSON array (`.json`, or standard input that starts with `[`), not CSV. */
  json: boolean;
  /** Removes the copy of standard input. */
  close(): void;
}

/** Standard input is copied to a temporary file first: a run reads its input twice, maybe in two threads. */
export async function inputFile(
  file: string,
  stdin: Readable & { isTTY?: boolean },
  { jsonArrays = false } = {},
): Promise<InputFile> {
  if (file !== "-") {
    const json = jsonArrays && /\.json$/i.test(file);
    return { path: file, name: file, rejectsBeside: file, json, close() {} };
  }
  const copy = await stdinToFile(stdin, "stdin");
  const json = jsonArrays && /^\uFEFF?\s*\[/.test((await readBytes(copy.path, 0, 4096)).toString("utf8"));
  const rejectsBeside = json ? "stdin.json" : "stdin.csv";
  return { path: copy.path, name: "stdin", rejectsBeside, json, close: copy.remove };
}

export function sheetWithoutWorkbook(path: string): UsageError {
  return new UsageError(
    `--sheet is for .xlsx input; ${path} is not a workbook (its name does not end in .xlsx)`,
    "Leave --sheet out, or give the .xlsx workbook itself.",
  );
}
