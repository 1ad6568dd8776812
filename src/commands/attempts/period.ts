/**
 * The attempts of a period of any length (`attempts list` and `watch`, `callbacks resend --from --to` and
 * `reconcile`, `reports export` and `stats`): one call per ≤30-day window, deduplicated by id, only --test's
 * tests when given. More than MAX_WINDOWS_UNASKED windows need a confirmation.
 */
import type { TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { formatCount, type Progress } from "../../output/progress.js";
import { orderedRange, parseDate, toServiceTime } from "../../parse/dates.js";
import { date } from "../../parse/flags.js";
import { boolean } from "../../parse/zod.js";
import { type Span, windowCount } from "../../sdk/attempts.js";
import type { Client } from "../../sdk/client.js";
import { requireValues } from "../shared/options.js";
import { MAX_WINDOWS_UNASKED } from "../shared/verbs.js";

export type Period = Span;

export const periodOptions = {
  from: date("start").optional(),
  to: date("end").optional(),
  yes: boolean().optional(),
};

/** `--from` and `--to`, asked for when missing and prompts are allowed (an answer is read as the flag is). */
export async function periodFromOptions(
  ctx: Context,
  options: { from?: Date; to?: Date; yes?: boolean },
): Promise<Period> {
  const [from, to] = await requireValues(ctx, [
    { flag: "--from", value: options.from, question: "From (YYYY-MM-DD, ISO time, or 30d for 30 days ago):" },
    { flag: "--to", value: options.to, question: "To (YYYY-MM-DD, ISO time, or now):" },
  ]);
  const period = orderedRange(
    options.from ?? parseDate(from!, "start", "--from"),
    options.to ?? parseDate(to!, "end", "--to"),
  );
  await confirmCalls(ctx, period, options.yes === true);
  return period;
}

/**
 * Above MAX_WINDOWS_UNASKED calls (`--from 1970-01-01` is a typing mistake more often than not) a person is
 * asked, or without prompts `--yes` is required. Dry runs ask too: the listing's reads are sent even then.
 */
export async function confirmCalls(ctx: Context, period: Period, yes: boolean): Promise<void> {
  const calls = windowCount(period);
  if (calls <= MAX_WINDOWS_UNASKED || yes) return;
  const span = `${toServiceTime(period.start)} … ${toServiceTime(period.end)}`;
  const what = `Listing the attempts of ${span} takes ${formatCount(calls)} calls to the service (one per 30 days)`;
  if (!ctx.canPrompt) {
    throw new UsageError(
      `${what}; more than ${MAX_WINDOWS_UNASKED} need confirmation`,
      `Pass --yes to make the ${formatCount(calls)} calls, or give a shorter period with --from and --to.`,
    );
  }
  const { confirmAction } = await import("../../prompts/confirm.js");
  await confirmAction(ctx, `${what}. Make them?`, "Nothing was read: you answered no");
}

/** The test id of an attempt as a number: the service's lists may spell ids as strings (`"1134601"`). */
export function attemptTestId({ testId }: TestAttempt): number | undefined {
  const value = Number(testId);
  return testId === null || testId === undefined || !Number.isFinite(value) ? undefined : value;
}

/** A test of another account (403, exit 4) or a typo is an error before any listing, not an empty one. */
export async function requireTests(client: Client, tests: Iterable<number>): Promise<void> {
  for (const testId of tests) await client.tests.get(testId);
}

/**
 * Pages of attempts, one per window in time order, only those of `tests` when given (an attempt without a test
 * id is of none), with the listing's progress on `progress` when given; Ctrl-C stops the listing before its
 * next window.
 */
export async function* attemptsOfPeriod(
  ctx: Context,
  client: Client,
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
  for await (const page of client.attempts.pages({
    from,
    to,
    state,
    concurrency,
    signal: ctx.signal,
    onWindow,
  })) {
    // The listing takes no test: the service lists every test's attempts, kept here to those asked for.
    const kept =
      tests.length === 0 ? page : page.filter((attempt) => tests.some((id) => id === attemptTestId(attempt)));
    if (kept.length > 0) yield kept;
  }
}

/** The finished attempts of `period` (only those of `tests` when given), the listing's progress on stderr. */
export async function finishedAttempts(
  ctx: Context,
  client: Client,
  period: Period,
  tests: readonly number[] = [],
): Promise<TestAttempt[]> {
  const attempts: TestAttempt[] = [];
  const progress = ctx.progress("windows");
  try {
    // One at a time: a page spread into push() as arguments would overflow the stack at a few 100,000.
    for await (const page of attemptsOfPeriod(ctx, client, period, { progress, tests })) {
      for (const attempt of page) attempts.push(attempt);
    }
  } finally {
    progress.done();
  }
  return attempts;
}
