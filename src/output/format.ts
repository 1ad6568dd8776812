import { UsageError } from "../errors.js";
import { findKey } from "../fields.js";

/**
 * Rows (or ids) listed on stderr per section: invalid rows of a file, failed rows of a run, ids not found; the
 * JSON output and the rejects file have them all.
 */
export const SHOWN_ROWS = 20;

export const FORMATS = ["table", "tsv", "json", "ndjson", "csv"] as const;
export type Format = (typeof FORMATS)[number];

/** Table on a terminal, tsv when piped; `--json` and `-o` override. */
export function chooseFormat(requested: string | undefined, stdoutIsTTY: boolean): Format {
  if (requested === undefined) return stdoutIsTTY ? "table" : "tsv";
  if ((FORMATS as readonly string[]).includes(requested)) return requested as Format;
  throw new UsageError(`Unknown output format "${requested}"`, `Choose one of: ${FORMATS.join(", ")}`);
}

/** Colour only on a terminal and never with NO_COLOR, FORCE_COLOR aside. */
export function useColor(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTTY === true && env.TERM !== "dumb";
}

/** OWASP CSV injection: a cell that a spreadsheet would read as a formula is prefixed with a quote. */
export function neutralizeFormula(cell: string): string {
  return /^[=+\-@\t\r\n]/.test(cell) ? `'${cell}` : cell;
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== "object"))
    return value.join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A dotted path into a record, each part in any casing; own keys only (`__proto__` names nothing). */
export function getPath(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    const key = findKey(current, part);
    if (key === undefined) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
