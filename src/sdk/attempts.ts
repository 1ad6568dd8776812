/**
 * The attempts of a span of any length: the service lists at most 30 days per call, so the span is split into
 * ≤30-day windows, a few fetched at once, and the pages come out in time order, deduplicated by invitation id.
 *
 * A span's bounds are inclusive seconds (`--to 2026-04-06` means up to 23:59:59). Each window is half-open,
 * [start, end), so consecutive windows share a boundary and nothing is counted twice; the service's bounds are
 * inclusive, so a window is sent as start … end − 1 s.
 */
import type { Api } from "../api/endpoints.js";
import type { TestAttempt } from "../api/schemas.js";
import { InterruptedError, UsageError } from "../errors.js";
import { orderedRange, parseDate, toServiceTime } from "../parse/dates.js";
import { MAX_ATTEMPT_SPAN_DAYS } from "../spec/limits.js";
import { mapOrdered } from "./map-ordered.js";
import type { AttemptSpan } from "./types.js";

export const MAX_WINDOW_MS = MAX_ATTEMPT_SPAN_DAYS * 86_400_000;
const SECOND_MS = 1000;

/** A span of time as the CLI's --from and --to give it (`Period` of commands/attempts/period.ts). */
export interface Span {
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
  return windows;
}

/** The inclusive bounds the service wants for a window: its start, and the last second before its end. */
export function inclusiveBounds(window: { start: Date; end: Date }): Span {
  return { start: window.start, end: new Date(window.end.getTime() - SECOND_MS) };
}

export function windowCount(span: Span): number {
  return splitWindows(span.start, span.end).length;
}

/**
 * Pages of attempts, one per window in time order, each with its window's inclusive bounds: the listing's
 * records carry no date, so the window is what is known of when an attempt finished.
 */
export async function* attemptWindows(
  api: Api,
  span: Span,
  // Four windows at once hide latency on long spans and stay polite.
  { state = "completed", concurrency = 4, signal, onWindow }: Omit<AttemptSpan, "from" | "to"> = {},
): AsyncGenerator<{ start: Date; end: Date; attempts: TestAttempt[] }> {
  const windows = splitWindows(span.start, span.end);
  const seen = new Set<number>();
  let done = 0;
  const pages = mapOrdered(windows, concurrency, async (window) => {
    if (signal?.aborted) throw new InterruptedError();
    const { start, end } = inclusiveBounds(window);
    const page = await api.listAttempts(toServiceTime(start), toServiceTime(end), state);
    onWindow?.(++done, windows.length);
    return { start, end, page };
  });
  for await (const { start, end, page } of pages) {
    if (signal?.aborted) throw new InterruptedError();
    const fresh = page.filter(
      (attempt) => !seen.has(attempt.testInvitationId) && seen.add(attempt.testInvitationId),
    );
    if (fresh.length > 0) yield { start, end, attempts: fresh };
  }
}

/** A span's bounds as Dates, in order: texts are read as the CLI reads --from and --to; errors name `from`, `to`. */
export function spanOf(span: { from: Date | string; to: Date | string }): Span {
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
