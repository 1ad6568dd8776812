/**
 * The attempts of a period of any length, as `attempts list`, `callbacks resend --from --to` and
 * `reports export` need them: one call per ≤30-day window, a few at a time, deduplicated by id.
 */
import type { Api } from "../../api/endpoints.js";
import type { TestAttempt } from "../../api/schemas.js";
import { mapOrdered } from "../../bulk/map-ordered.js";
import { inclusiveBounds, splitWindows } from "../../bulk/windows.js";
import type { Context } from "../../context.js";
import { InterruptedError } from "../../errors.js";
import { parseRange, toServiceTime } from "../shared/dates.js";
import { requireValues } from "../shared/options.js";

/** Windows fetched at once: enough to hide latency on long periods, few enough to stay polite. */
export const WINDOW_CONCURRENCY = 4;

export interface Period {
  start: Date;
  end: Date;
}

/** `--from` and `--to` (asked for when missing and prompts are allowed), parsed per CLI.md "Dates". */
export async function periodFromOptions(ctx: Context, options: Record<string, unknown>): Promise<Period> {
  const [from, to] = await requireValues(ctx, [
    { flag: "--from", value: options.from, question: "From (YYYY-MM-DD, ISO time, or 30d for 30 days ago):" },
    { flag: "--to", value: options.to, question: "To (YYYY-MM-DD, ISO time, or now):" },
  ]);
  return parseRange(from!, to!);
}

/**
 * Pages of attempts, one per window in time order (the records carry no time, so within a window the
 * service's order is kept). An id seen in an earlier window is not repeated.
 */
export async function* attemptsOfPeriod(
  ctx: Context,
  api: Api,
  period: Period,
  state = "completed",
  onWindow?: (done: number, total: number) => void,
): AsyncGenerator<TestAttempt[]> {
  const windows = splitWindows(period.start, period.end);
  const seen = new Set<number>();
  let done = 0;
  const pages = mapOrdered(windows, WINDOW_CONCURRENCY, async (window) => {
    if (ctx.signal.aborted) throw new InterruptedError();
    const { start, end } = inclusiveBounds(window);
    const page = await api.listAttempts(toServiceTime(start), toServiceTime(end), state);
    onWindow?.(++done, windows.length);
    return page;
  });
  for await (const page of pages) {
    if (ctx.signal.aborted) throw new InterruptedError();
    const fresh = page.filter(
      (attempt) => !seen.has(attempt.testInvitationId) && seen.add(attempt.testInvitationId),
    );
    if (fresh.length > 0) yield fresh;
  }
}
