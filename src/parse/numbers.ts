import { UsageError } from "../errors.js";

export function parseId(value: unknown, name: string): number {
  return parseIntInRange(value, name, 1, Number.MAX_SAFE_INTEGER);
}

/** A whole number from `min` to `max`, digits only (not 1e3, 0x10 or +5); `unit` words it (" of milliseconds"). */
export function parseIntInRange(value: unknown, name: string, min: number, max: number, unit = ""): number {
  const text = String(value ?? "").trim();
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || n < min || n > max) {
    // Without an upper bound of its own, the largest safe integer would only puzzle.
    const wanted =
      max < Number.MAX_SAFE_INTEGER
        ? `a whole number${unit} from ${min} to ${max}`
        : min === 1
          ? "a positive whole number"
          : `a whole number of at least ${min}`;
    throw new UsageError(`${name} must be ${wanted}, got "${text}"`);
  }
  return n;
}
