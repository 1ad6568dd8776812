/**
 * The finished attempts of a period and their reports, for `reports export` and `reports stats`. A report that
 * cannot be fetched is kept as an outcome with its error; a bad key or permission (exit 4) stops the run.
 */
import type { Api } from "../api/endpoints.js";
import type { Report, TestAttempt } from "../api/schemas.js";
import { ExitCode, InterruptedError } from "../errors.js";
import { finishedAttempts, requireTests } from "./finished-attempts.js";
import { mapOrdered } from "./map-ordered.js";
import type { Notices } from "./notices.js";
import type { Period } from "./periods.js";

export type ReportOutcome = { attempt: TestAttempt; report: Report } | { attempt: TestAttempt; error: Error };

/**
 * The finished attempts of `period`, only those of `testIds` when given (none means every test), and each
 * one's report in the attempts' order, at most `concurrency` requests at once.
 */
export async function periodReports(
  notices: Notices,
  api: Api,
  period: Period,
  testIds: readonly number[],
  concurrency: number,
) {
  await requireTests(api, testIds);
  const attempts = await finishedAttempts(notices, api, period, testIds);

  const outcomes: ReportOutcome[] = [];
  const fetching = notices.progress("reports");
  try {
    const reports = mapOrdered(attempts, concurrency, async (attempt): Promise<ReportOutcome> => {
      if (notices.signal.aborted) throw new InterruptedError();
      try {
        return { attempt, report: await api.call("getReport", [attempt.testInvitationId]) };
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
  if (notices.signal.aborted) throw new InterruptedError();
  return { attempts, outcomes };
}
