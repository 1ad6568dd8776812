/**
 * The finished attempts of a period of any length (`attempts list` and `watch`, `callbacks resend --from --to`
 * and `reconcile`, `reports export` and `stats`, `assess mcp`): one call per ≤30-day window (a few at once),
 * the pages in time order, deduplicated by invitation id, only the tests asked for when given.
 */
import type { Api } from "../api/endpoints.js";
import type { TestAttempt } from "../api/schemas.js";
import { InterruptedError } from "../errors.js";
import type { Progress } from "../output/progress.js";
import { toServiceTime } from "../parse/dates.js";
import { mapOrdered } from "./map-ordered.js";
import type { Notices } from "./notices.js";
import { inclusiveBounds, type Period, spanOf, splitWindows } from "./periods.js";

/**
 * Pages of attempts, one per window in time order, each with its window's inclusive bounds: the listing's
 * records carry no date, so the window is what is known of when an attempt finished.
 */
export async function* attemptWindows(
  api: Api,
  span: Period,
  // Four windows at once hide latency on long spans and stay polite.
  {
    state = "completed",
    concurrency = 4,
    signal,
    onWindow,
  }: {
    state?: string;
    concurrency?: number;
    signal?: AbortSignal;
    onWindow?: (done: number, total: number) => void;
  } = {},
): AsyncGenerator<{ start: Date; end: Date; attempts: TestAttempt[] }> {
  const windows = splitWindows(span.start, span.end);
  const seen = new Set<number>();
  let done = 0;
  const pages = mapOrdered(windows, concurrency, async (window) => {
    if (signal?.aborted) throw new InterruptedError();
    const { start, end } = inclusiveBounds(window);
    const page = await api.listAttempts(toServiceTime(start), toServiceTime(end), state, signal);
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

/** The test id of an attempt as a number: the service's lists may spell ids as strings (`"1134601"`). */
export function attemptTestId({ testId }: TestAttempt): number | undefined {
  const value = Number(testId);
  return testId === null || testId === undefined || !Number.isFinite(value) ? undefined : value;
}

/** A test of another account (403, exit 4) or a typo is an error before any listing, not an empty one. */
export async function requireTests(api: Api, tests: Iterable<number>): Promise<void> {
  for (const testId of tests) await api.call("getTest", [testId]);
}

/**
 * Pages of attempts, one per window in time order, only those of `tests` when given (an attempt without a test
 * id is of none), with the listing's progress on `progress` when given; Ctrl-C stops the listing before its
 * next window.
 */
export async function* attemptsOfPeriod(
  notices: Pick<Notices, "signal">,
  api: Api,
  period: Period,
  {
    state,
    progress,
    tests = [],
    concurrency,
  }: { state?: string; progress?: Progress; tests?: readonly number[]; concurrency?: number } = {},
): AsyncGenerator<TestAttempt[]> {
  const onWindow = progress && ((done: number, total: number) => progress.update({ done, total }));
  const { start: from, end: to } = period;
  for await (const { attempts: page } of attemptWindows(api, spanOf({ from, to }), {
    state,
    concurrency,
    signal: notices.signal,
    onWindow,
  })) {
    // The listing takes no test: the service lists every test's attempts, kept here to those asked for.
    const kept =
      tests.length === 0 ? page : page.filter((attempt) => tests.some((id) => id === attemptTestId(attempt)));
    if (kept.length > 0) yield kept;
  }
}

/** The finished attempts of `period` (only those of `tests` when given), the listing's progress shown. */
export async function finishedAttempts(
  notices: Notices,
  api: Api,
  period: Period,
  tests: readonly number[] = [],
): Promise<TestAttempt[]> {
  const attempts: TestAttempt[] = [];
  const progress = notices.progress("windows");
  try {
    // One at a time: a page spread into push() as arguments would overflow the stack at a few 100,000.
    for await (const page of attemptsOfPeriod(notices, api, period, { progress, tests })) {
      for (const attempt of page) attempts.push(attempt);
    }
  } finally {
    progress.done();
  }
  return attempts;
}
