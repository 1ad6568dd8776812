/**
 * The finished attempts of a period and their reports, for `reports export` and `reports stats`. A report that
 * cannot be fetched is kept as an outcome with its error; a bad key or permission (exit 4) stops the run.
 */
import type { Report, TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { ExitCode, InterruptedError } from "../../errors.js";
import type { Client } from "../../sdk/client.js";
import { mapOrdered } from "../../sdk/map-ordered.js";
import { finishedAttempts, type Period, requireTests } from "../attempts/period.js";

export type ReportOutcome = { attempt: TestAttempt; report: Report } | { attempt: TestAttempt; error: Error };

/**
 * The finished attempts of `period`, only those of `testIds` when given (none means every test), and each
 * one's report in the attempts' order, at most `concurrency` requests at once.
 */
export async function periodReports(
  ctx: Context,
  client: Client,
  period: Period,
  testIds: readonly number[],
  concurrency: number,
) {
  await requireTests(client, testIds);
  const attempts = await finishedAttempts(ctx, client, period, testIds);

  const outcomes: ReportOutcome[] = [];
  const fetching = ctx.progress("reports");
  try {
    const reports = mapOrdered(attempts, concurrency, async (attempt): Promise<ReportOutcome> => {
      if (ctx.signal.aborted) throw new InterruptedError();
      try {
        return { attempt, report: await client.reports.get(attempt.testInvitationId) };
      } catch (error) {
        if ((error as { exitCode?: number }).exitCode === ExitCode.auth) throw error;
        return { attempt, error: error as Error };
      }
    });
    for await (const outcome of reports) {
      outcomes.push(outcome);
      fetching.update({ done: outcomes.length, total: attempts.length });
    }
  } finally {
    fetching.done();
  }
  if (ctx.signal.aborted) throw new InterruptedError();
  return { attempts, outcomes };
}
