/**
 * A bulk run's input opened by what it is: one sheet of an .xlsx workbook (its large reader loaded only then),
 * else CSV text; either way a CsvInput. `-` is standard input. What a file is, is judged by its first bytes
 * first: a workbook under another name (`.xlsx` saved as `.csv`, an old `.xls` one) is said to be one, and a
 * `.xls` file that is really text is read as the CSV it is.
 */
import { extname } from "node:path";
import type { Readable } from "node:stream";
import { UsageError } from "../../errors.js";
import { stdinToFile } from "../../files.js";
import { type CsvInput, displayName, openCsv, readBytes } from "./csv.js";

export function isWorkbook(path: string): boolean {
  return extname(path).toLowerCase() === ".xlsx";
}

/**
 * Spreadsheets that are not .xlsx, by name: refused with a way out rather than read as CSV. An .xls file is
 * judged by its bytes (an old workbook's, or text: then it is read as CSV).
 */
const OTHER_WORKBOOKS: Record<string, string> = {
  ".xlsm": "a macro-enabled workbook (.xlsm)",
  ".xlsb": "a binary workbook (.xlsb)",
  ".ods": "an OpenDocument spreadsheet (.ods)",
  ".numbers": "a Numbers document",
};

/** The first bytes of a ZIP archive (an .xlsx, .xlsm, .ods workbook) and of an OLE2 file (an old .xls one). */
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const SAVE_AS =
  "Save it from the spreadsheet as an Excel Workbook (.xlsx), or export the sheet as CSV (UTF-8).";

/** What the file's first bytes say it is; undefined for anything else (text), or a file that cannot be read. */
async function signature(path: string): Promise<"zip" | "ole2" | undefined> {
  const head = await readBytes(path, 0, OLE2.length).catch(() => undefined);
  if (head?.subarray(0, ZIP.length).equals(ZIP)) return "zip";
  if (head?.equals(OLE2)) return "ole2";
  return undefined;
}

export async function openRows(
  path: string,
  options: { delimiter?: string; sheet?: string; name?: string; example?: string } = {},
): Promise<CsvInput> {
  const name = displayName(options.name ?? path);
  const extension = extname(path).toLowerCase();
  const kind = await signature(path);
  if (kind === "ole2") {
    throw new UsageError(
      `${name}:1: an Excel 97–2003 workbook (the old binary .xls format): bulk input is CSV (UTF-8) or an .xlsx workbook`,
      SAVE_AS,
    );
  }
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
  const other = OTHER_WORKBOOKS[extension];
  if (other)
    throw new UsageError(`${path} is ${other}: bulk input is CSV (UTF-8) or an .xlsx workbook`, SAVE_AS);
  if (kind === "zip") {
    const named = options.name === "stdin" ? "" : `, though its name ends in ${extension || "no extension"}`;
    throw new UsageError(
      `${name}:1: a workbook (a ZIP archive, as .xlsx files are), not CSV text${named}`,
      options.name === "stdin"
        ? "Save it as a file whose name ends in .xlsx and give that file: its first sheet is read (another with --sheet)."
        : `Give it a name that ends in .xlsx (for example \`mv ${path} ${path.slice(0, path.length - extension.length)}.xlsx\`): its first sheet is read (another with --sheet). Or export the sheet as CSV (UTF-8).`,
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
