/**
 * A bulk run's input file opened by what it is: one sheet of an .xlsx workbook (xlsx.ts: its reader, a large
 * library, is loaded only then), else CSV text. Either way the rows come as a CsvInput, for the same row
 * readers (registry.ts). `-` is standard input (inputFile).
 */
import { open } from "node:fs/promises";
import { extname } from "node:path";
import type { Readable } from "node:stream";
import { UsageError } from "../../errors.js";
import { stdinToFile } from "../../files.js";
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

/** A bulk run's input as given on the command line: a file, or `-` for standard input. */
export interface InputFile {
  /** Where it is read from: the file, or a private temporary copy of standard input. */
  path: string;
  /** How messages name it: the file as given, or "stdin". */
  name: string;
  /** What the default rejects file is named after: the file, or stdin.csv (stdin.json) in the working folder. */
  rejectsBeside: string;
  /** A JSON array (employees: `.json`, or standard input that starts with `[`), not CSV. */
  json: boolean;
  /** Removes the temporary copy of standard input (nothing for a file). */
  close(): void;
}

/**
 * The input of `invite bulk` / `employees upsert`. Standard input (`-`) is copied to a temporary file first:
 * a run reads its input twice (the check, then the sending), and a large one in two threads at once.
 */
export async function inputFile(
  file: string,
  stdin: Readable & { isTTY?: boolean },
  { jsonArrays = false } = {},
): Promise<InputFile> {
  if (file !== "-") {
    return {
      path: file,
      name: file,
      rejectsBeside: file,
      json: jsonArrays && /\.json$/i.test(file),
      close() {},
    };
  }
  const copy = await stdinToFile(stdin, "stdin");
  const json = jsonArrays && (await startsWithBracket(copy.path));
  return {
    path: copy.path,
    name: "stdin",
    rejectsBeside: json ? "stdin.json" : "stdin.csv",
    json,
    close: copy.remove,
  };
}

/** Whether a text's first character, after a BOM and white space, is `[` (a JSON array, not a CSV header). */
async function startsWithBracket(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return /^\uFEFF?\s*\[/.test(buffer.subarray(0, bytesRead).toString("utf8"));
  } finally {
    await handle.close();
  }
}

/** `--sheet` names a sheet of an .xlsx workbook; any other input has none. */
export function sheetWithoutWorkbook(path: string): UsageError {
  return new UsageError(
    `--sheet is for .xlsx input; ${path} is not a workbook (its name does not end in .xlsx)`,
    "Leave --sheet out, or give the .xlsx workbook itself.",
  );
}
