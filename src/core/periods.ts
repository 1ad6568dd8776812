/**
 * Periods of any length: the service lists at most 30 days of attempts per call, so a period is split into
 * ≤30-day windows (finished-attempts.ts fetches a few at once).
 *
 * A span's bounds are inclusive seconds (`--to 2026-04-06` means up to 23:59:59). Each window is half-open,
 * [start, end), so consecutive windows share a boundary and nothing is counted twice; the service's bounds are
 * inclusive, so a window is sent as start … end − 1 s.
 */
import { UsageError } from "../errors.js";
import { orderedRange, parseDate } from "../parse/dates.js";
import { MAX_ATTEMPT_SPAN_DAYS } from "../spec/limits.js";

export const MAX_WINDOW_MS = MAX_ATTEMPT_SPAN_DAYS * 86_400_000;
const SECOND_MS = 1000;

/** Calls (30-day windows) of a period's listing made unasked (commands/shared/period.ts asks above that). */
export const MAX_WINDOWS_UNASKED = 24;

/** A span of time as the CLI's --from and --to give it. */
export interface Period {
  start: Date;
  /** Inclusive, to the second. */
  end: Date;
}

/** Consecutive half-open windows of at most `maxMs` covering [start, endInclusive] exactly. */
export function splitWindows(start: Date, endInclusive: Date, maxMs = MAX_WINDOW_MS) {
  const from = start.getTime();
  const until = endInclusive.getTime() + SECOND_MS;
  if (!(until > from)) throw new RangeError("the end of a period must not be before its start");
  if (maxMs < SECOND_MS) throw new RangeError("a window must span at least one second");
  const windows: Array<{ start: Date; end: Date }> = [];
  for (let at = from; at < until; at += maxMs) {
    windows.push({ start: new Date(at), end: new Date(Math.min(at + maxMs, until)) });
  }
  // A last window of one second would be sent starting where it ends (`--from 30d --to now`): a service may refuse
  // that as an end not after its start. The last two windows share the span instead, each still within the limit.
  const [before, last] = windows.slice(-2);
  if (last && before && last.end.getTime() - last.start.getTime() === SECOND_MS) {
    const half = Math.floor((last.end.getTime() - before.start.getTime()) / 2 / SECOND_MS) * SECOND_MS;
    before.end = last.start = new Date(before.start.getTime() + half);
  }
  return windows;
}

/** The inclusive bounds the service wants for a window: its start, and the last second before its end. */
export function inclusiveBounds(window: { start: Date; end: Date }): Period {
  return { start: window.start, end: new Date(window.end.getTime() - SECOND_MS) };
}

export function windowCount(span: Period): number {
  return splitWindows(span.start, span.end).length;
}

/** A span's bounds as Dates, in order: texts are read as the CLI reads --from and --to; errors name `from`, `to`. */
export function spanOf(span: { from: Date | string; to: Date | string }): Period {
  const bound = (value: Date | string, which: "start" | "end", name: string): Date => {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new UsageError(`${name}: an invalid Date`);
      return new Date(Math.floor(value.getTime() / 1000) * 1000);
    }
    return parseDate(value, which, name);
  };
  return orderedRange(bound(span.from, "start", "from"), bound(span.to, "end", "to"), {
    from: "from",
    to: "to",
  });
}
