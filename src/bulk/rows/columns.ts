/** Finding columns by name: case-insensitive, ignoring spaces, `_` and `-`. */
import { UsageError } from "../../errors.js";

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
  where: { file: string; line: number; role: string; option?: string },
  override?: string,
): number | undefined {
  const wanted = override !== undefined ? [normalizeHeader(override)] : aliases;
  const hits: number[] = [];
  header.forEach((cell, index) => {
    if (wanted.includes(normalizeHeader(cell))) hits.push(index);
  });
  if (override !== undefined && hits.length === 0) {
    throw new UsageError(
      `${where.file}:${where.line}: no column named "${override}" (${where.option}); the header has: ${listHeader(header)}`,
    );
  }
  if (hits.length > 1) {
    throw new UsageError(
      `${where.file}:${where.line}: columns ${hits.map((i) => `${i + 1} ("${header[i]}")`).join(" and ")} are both the ${where.role} column`,
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
