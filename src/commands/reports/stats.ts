/**
 * `reports stats`: per test, the statuses and scores of a period's finished attempts. A report that cannot be
 * fetched is named without stopping the others: exit 0, or 1 when every report failed (nothing to describe).
 */
import type { TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { ExitCode, UsageError } from "../../errors.js";
import { toServiceTime } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { id, int, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import type { Client } from "../../sdk/client.js";
import { type Period, periodFromOptions, periodOptions } from "../attempts/period.js";
import { fetchReports, finishedAttempts, type ReportOutcome } from "./period-reports.js";
import { computeStats, type TestStats } from "./stats-compute.js";
import { utcDay } from "./stats-math.js";
import { flatColumns, flatRow, renderTest } from "./stats-render.js";

/** Reports fetched at once unless told otherwise (`assess mcp` does not). */
const REPORT_CONCURRENCY = 8;

/** A score percentage from 0 to 100, decimals allowed (`--pass-mark 62.5`). */
const passMark = () =>
  parsed((text) => {
    const value = Number(text.trim());
    if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 100) {
      throw new UsageError(`${FLAG} must be a score percentage from 0 to 100, got "${text}"`);
    }
    return value;
  });

export const options = z.object({
  ...periodOptions,
  test: z.array(id()).optional(),
  passMark: passMark().optional(),
  concurrency: int(1, 32),
});

/** The numbers of a period per test (only `testIds` when given), for `reports stats` and `assess mcp`. */
export async function statsOfPeriod(
  ctx: Context,
  client: Client,
  period: Period,
  options: { testIds?: number[]; passMark?: number; concurrency?: number },
): Promise<{ stats: TestStats[]; attempts: TestAttempt[]; outcomes: ReportOutcome[] }> {
  const testIds = [...new Set(options.testIds ?? [])];
  // Another account's test is refused here (403, exit 4) rather than silently counting nothing.
  for (const testId of testIds) await client.tests.get(testId);

  const attempts = await finishedAttempts(ctx, client, period, testIds);
  const outcomes = await fetchReports(ctx, client, attempts, options.concurrency ?? REPORT_CONCURRENCY);

  const lastTime = Math.max(period.start.getTime(), Math.min(period.end.getTime(), Date.now()));
  const stats = computeStats({
    outcomes,
    testIds,
    from: toServiceTime(period.start),
    to: toServiceTime(period.end),
    firstDay: utcDay(period.start),
    lastDay: utcDay(new Date(lastTime)),
    passMark: options.passMark,
  });
  return { stats, attempts, outcomes };
}

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const period = await periodFromOptions(ctx, o);
  const { stats, attempts, outcomes } = await statsOfPeriod(ctx, await ctx.client(), period, {
    testIds: o.test,
    passMark: o.passMark,
    concurrency: o.concurrency,
  });

  const out = ctx.out;
  if (out.format === "table" && !out.options.fields) {
    const width = out.options.width || 80;
    if (stats.length > 0) out.write(stats.map((test) => renderTest(test, out.style, width)).join("\n"));
  } else if (out.isJson) {
    await out.list(stats as unknown as Array<Record<string, unknown>>, [
      { key: "testId" },
      { key: "testName" },
    ]);
  } else {
    await out.list(stats.map(flatRow), flatColumns(stats));
  }

  const failed = stats.flatMap((test) => test.failedReports);
  const fetched = outcomes.length - failed.length;
  if (attempts.length === 0) ctx.info("No finished attempts in that period.");
  if (failed.length === 0) return 0;
  ctx.warn(
    `${failed.length} of ${attempts.length} report(s) could not be fetched; the numbers leave them out (their statuses are the listing's):`,
  );
  for (const { testInvitationId, error } of failed) ctx.info(`  ${testInvitationId}: ${error}`);
  ctx.info("See one with `assess reports get <id>`, or run the stats again.");
  return fetched === 0 ? ExitCode.failure : 0;
}
