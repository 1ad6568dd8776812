/**
 * Columns found by name (any case, ignoring spaces, `_` and `-`), and how messages name rows and columns:
 * `file.csv:12` and the header's name, or `file.xlsx, sheet "Staff", row 12` and `column "email"`.
 */
import { UsageError } from "../../errors.js";

interface Placed {
  name: string;
  sheet?: string;
}

export function inputLabel(input: Placed): string {
  return input.sheet === undefined ? input.name : `${input.name}, sheet "${input.sheet}"`;
}

export function rowPlace(input: Placed, line: number): string {
  return input.sheet === undefined ? `${input.name}:${line}` : `${inputLabel(input)}, row ${line}`;
}

export function columnLabel(input: Placed, header: string): string {
  return input.sheet === undefined ? header : `column "${header}"`;
}

export function normalizeHeader(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

/** The column named by one of `aliases` (or by `override`, a `--x-column`); two of them: a usage error. */
export function findColumn(
  header: string[],
  aliases: readonly string[],
  where: { at: string; role: string; option?: string },
  override?: string,
): number | undefined {
  const wanted = override !== undefined ? [normalizeHeader(override)] : aliases;
  const hits = header.flatMap((cell, index) => (wanted.includes(normalizeHeader(cell)) ? [index] : []));
  if (override !== undefined && hits.length === 0) {
    throw new UsageError(
      `${where.at}: no column named "${override}" (${where.option}); the header has: ${listHeader(header)}`,
    );
  }
  if (hits.length > 1) {
    throw new UsageError(
      `${where.at}: columns ${hits.map((i) => `${i + 1} ("${header[i]}")`).join(" and ")} are both the ${where.role} column`,
      where.option ? `Rename one, or choose with ${where.option}.` : "Rename or remove one of them.",
    );
  }
  return hits[0];
}

export function listHeader(header: string[]): string {
  const shown = header
    .slice(0, 12)
    .map((cell) => JSON.stringify(cell.length > 40 ? `${cell.slice(0, 37)}...` : cell));
  return shown.join(", ") + (header.length > 12 ? `, … (${header.length} columns)` : "");
}

/**
 * When a workbook's sheet has no header that fits, its other sheets may hold the rows: they are named, with
 * --sheet; nothing is said of a CSV file or of a workbook of one sheet.
 */
export function otherSheets(input: Placed & { sheets?: string[] }): string {
  const others = (input.sheets ?? []).filter((sheet) => sheet !== input.sheet);
  if (others.length === 0) return "";
  const names = (input.sheets ?? []).map((sheet) => JSON.stringify(sheet)).join(", ");
  return ` The workbook's sheets are ${names}: name the one with the rows with --sheet (for example --sheet ${quoteArg(others[0]!)}).`;
}

/** A sheet's name as a shell argument. */
function quoteArg(text: string): string {
  return /^[\w.-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** A header holding an e-mail address is most likely data: the header row is missing. */
export function looksHeaderless(header: string[]): boolean {
  return header.some((cell) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(cell.trim()));
}

/** A sheet's column as the spreadsheet names it: 1 → A, 27 → AA. */
export function columnName(n: number): string {
  let name = "";
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) name = String.fromCharCode(65 + ((k - 1) % 26)) + name;
  return name;
}

/** More non-empty fields than the header names: an unquoted delimiter (CSV) or an unnamed column (sheet). */
export function extraFields(fields: string[], width: number, sheet = false): string | undefined {
  for (let i = width; i < fields.length; i++) {
    if (fields[i]!.trim() !== "") {
      return sheet
        ? `a value in column ${columnName(i + 1)}, which the header row does not name`
        : `${fields.length} fields but the header has ${width} (quote values that contain the delimiter)`;
    }
  }
  return undefined;
}
