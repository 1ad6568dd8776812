/**
 * The attempts of a span of any length: the service lists at most 30 days per call, so the span is split into
 * ≤30-day windows (windows.ts), a few fetched at once, and the pages come out in time order,
 * deduplicated by invitation id (an attempt seen in an earlier window is not repeated).
 */
import type { Api } from "../api/endpoints.js";
import type { TestAttempt } from "../api/schemas.js";
import { InterruptedError, UsageError } from "../errors.js";
import { orderedRange, parseDate, toServiceTime } from "../parse/dates.js";
import { mapOrdered } from "./map-ordered.js";
import { inclusiveBounds, splitWindows } from "./windows.js";

/** Windows fetched at once: enough to hide latency on long spans, few enough to stay polite. */
export const WINDOW_CONCURRENCY = 4;

export interface Span {
  start: Date;
  /** Inclusive, to the second. */
  end: Date;
}

export interface AttemptPagesOptions {
  /** The attempts' state as the service names it; "completed" unless given. */
  state?: string;
  /** Windows fetched at once (default 4). */
  concurrency?: number;
  /** Stops before the next window: the listing then throws an InterruptedError. */
  signal?: AbortSignal;
  /** Called as each window's answer arrives: how many are done, of how many. */
  onWindow?: (done: number, total: number) => void;
}

/** How many calls (≤30-day windows) a span takes. */
export function windowCount(span: Span): number {
  return splitWindows(span.start, span.end).length;
}

/** Pages of attempts, one per window in time order (within a window, the service's order is kept). */
export async function* attemptPages(
  api: Api,
  span: Span,
  options: AttemptPagesOptions = {},
): AsyncGenerator<TestAttempt[]> {
  for await (const { attempts } of attemptWindows(api, span, options)) yield attempts;
}

/**
 * attemptPages with each page's window (its inclusive bounds): the listing's records carry no date, so the
 * window is what is known of when an attempt finished.
 */
export async function* attemptWindows(
  api: Api,
  span: Span,
  options: AttemptPagesOptions = {},
): AsyncGenerator<{ start: Date; end: Date; attempts: TestAttempt[] }> {
  const { state = "completed", signal, onWindow } = options;
  const windows = splitWindows(span.start, span.end);
  const seen = new Set<number>();
  let done = 0;
  const pages = mapOrdered(windows, options.concurrency ?? WINDOW_CONCURRENCY, async (window) => {
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

/** A span's bounds as Dates, in order: texts are read as the CLI reads --from and --to. */
export function spanOf(span: { from: Date | string; to: Date | string }): Span {
  const bound = (value: Date | string, which: "start" | "end", name: string): Date => {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new UsageError(`${name}: an invalid Date`);
      return new Date(Math.floor(value.getTime() / 1000) * 1000);
    }
    return parseDate(value, which, name);
  };
  const { start, end } = orderedRange(bound(span.from, "start", "from"), bound(span.to, "end", "to"));
  return { start, end };
}
