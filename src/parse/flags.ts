/**
 * The value rules of flags and arguments as zod blocks for verbs' schemas (`pageSize: int(1, 100)`), in the
 * words of the parser each wraps; `{flag}` becomes the flag's name where the schema is applied (verbs.ts).
 */
import { UsageError } from "../errors.js";
import { type Bound, formatDuration, parseDate, parseDuration } from "./dates.js";
import { FLAG } from "./flag.js";
import { parseId, parseIntInRange } from "./numbers.js";
import { NEVER, string } from "./zod.js";

/** A string read by `parse`; the usage error it throws (naming the value `FLAG`) becomes the issue. */
export function parsed<T>(parse: (text: string) => T) {
  return string().transform((text, ctx): T => {
    try {
      return parse(text);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message, params: { suggestion: error.suggestion } });
      return NEVER;
    }
  });
}

export const id = () => parsed((text) => parseId(text, FLAG));

export const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  parsed((text) => parseIntInRange(text, FLAG, min, max));

/** One of `allowed`; `anyCase` accepts `Video` for `video` (and trims), giving the listed spelling. */
export const choice = <T extends string>(allowed: readonly T[], { anyCase = false } = {}) =>
  parsed((text): T => {
    const value = anyCase ? text.trim().toLowerCase() : text;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    throw new UsageError(`${FLAG} must be one of ${allowed.join(", ")}, got "${value}"`);
  });

export const date = (bound: Bound) => parsed((text) => parseDate(text, bound, FLAG));

/** In milliseconds, at least `minMs`. */
export const duration = (minMs = 1000) =>
  parsed((text) => {
    const ms = parseDuration(text, FLAG);
    if (ms < minMs) throw new UsageError(`${FLAG} must be at least ${formatDuration(minMs)}, got "${text}"`);
    return ms;
  });

const YES = new Set(["yes", "y", "true", "1", "on"]);
const NO = new Set(["no", "n", "false", "0", "off"]);

/** A yes/no value as the service's settings take it: 1 or 0 (`yes`, `true`, `1`, `on`; `no`, `false`...). */
export const yesNo = () =>
  parsed((text): 0 | 1 => {
    const word = text.toLowerCase();
    if (YES.has(word)) return 1;
    if (NO.has(word)) return 0;
    throw new UsageError(`${FLAG} must be yes or no, got "${text}"`);
  });

/** An http:// or https:// URL given to `flag`, normalized. */
export function httpUrl(value: string, flag: string): string {
  if (!URL.canParse(value))
    throw new UsageError(
      `${flag}: "${value}" is not a URL`,
      "Give a full URL such as http://127.0.0.1:3000/hooks/assess",
    );
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${flag} must be an http:// or https:// URL`);
  }
  return url.toString();
}
