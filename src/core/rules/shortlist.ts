/**
 * A rule's `append` action: one CSV row per attempt and rule in a shortlist file, cells neutralised against
 * formulas as `-o csv`'s are. The row's last cell is the run's key (attempt, rule and action): a row already in
 * the file under that key is not written again, so an action tried again after a crash adds no second row.
 */
import { closeSync, constants, fstatSync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import { openForAppend } from "../../config/private.js";
import { cellText } from "../../output/format.js";
import { csvRow } from "../../output/output.js";

export const SHORTLIST_COLUMNS = [
  "rule",
  "testInvitationId",
  "testId",
  "testName",
  "name",
  "email",
  "status",
  "score",
  "appendedAt",
  "key",
] as const;

/** A shortlist larger is not read through for its keys: it is refused (start a new file). */
const MAX_SHORTLIST_BYTES = 64 * 1024 * 1024;

/**
 * Appends the row (its header first in a new or empty file) unless a row of `key` is there; flushed to disk
 * before it returns. False when the row was there already.
 */
export function appendShortlistRow(
  file: string,
  row: Record<(typeof SHORTLIST_COLUMNS)[number], unknown>,
): boolean {
  const fd = openForAppend(file);
  try {
    const size = fstatSync(fd).size;
    const key = String(row.key);
    if (size > 0 && holdsKey(file, size, key)) return false;
    const cells = SHORTLIST_COLUMNS.map((column) => cellText(row[column]));
    const lines = `${size === 0 ? `${csvRow([...SHORTLIST_COLUMNS])}\r\n` : ""}${csvRow(cells)}\r\n`;
    writeSync(fd, lines);
    fsyncSync(fd);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Whether a line of the file ends with the key as its last cell. */
function holdsKey(file: string, size: number, key: string): boolean {
  if (size > MAX_SHORTLIST_BYTES) {
    throw new Error(`${file} is over 64 MiB: start a new shortlist file (the rule's append names it)`);
  }
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const cell = csvRow([key]);
    return buffer
      .subarray(0, read)
      .toString("utf8")
      .split("\n")
      .some((line) => line.replace(/\r$/, "").endsWith(`,${cell}`));
  } finally {
    closeSync(fd);
  }
}
