/**
 * Finding columns by name: case-insensitive, ignoring spaces, `_` and `-`. And how messages point at a row
 * and name a column: `file.csv:12` and the header's name for CSV, `file.xlsx, sheet "Staff", row 12` and
 * `column "email"` for a sheet.
 */
import { UsageError } from "../../errors.js";

/** What a message needs to know of the input: its name, and its sheet's when it is a workbook's. */
export interface Placed {
  name: string;
  sheet?: string;
}

/** The input as a summary names it: `candidates.csv`, `candidates.xlsx, sheet "Candidates"`. */
export function inputLabel(input: Placed): string {
  return input.sheet === undefined ? input.name : `${input.name}, sheet "${input.sheet}"`;
}

/** Where a row is: `candidates.csv:12` (its line), `candidates.xlsx, sheet "Candidates", row 12`. */
export function rowPlace(input: Placed, line: number): string {
  return input.sheet === undefined ? `${input.name}:${line}` : `${inputLabel(input)}, row ${line}`;
}

/** A column in a row's message: as the header writes it (`Email Address`), `column "Email Address"` in a sheet. */
export function columnLabel(input: Placed, header: string): string {
  return input.sheet === undefined ? header : `column "${header}"`;
}

export function normalizeHeader(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

/**
 * The index of the column named by one of `aliases` (or by `override`, the user's `--x-column`), or undefined.
 * Two columns answering to the same role make the header ambiguous: a usage error.
 */
export function findColumn(
  header: string[],
  aliases: readonly string[],
  where: { at: string; role: string; option?: string },
  override?: string,
): number | undefined {
  const wanted = override !== undefined ? [normalizeHeader(override)] : aliases;
  const hits: number[] = [];
  header.forEach((cell, index) => {
    if (wanted.includes(normalizeHeader(cell))) hits.push(index);
  });
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

/** A header whose cells look like data (an e-mail address) most likely is data: the header row is missing. */
export function looksHeaderless(header: string[]): boolean {
  return header.some((cell) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(cell.trim()));
}
