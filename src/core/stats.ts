/**
 * `reports stats`'s numbers, one record per test, from the attempts of a period and their fetched reports.
 * A score may come as a number or numeric text: the report's `scorePercentage`, else its points out of its
 * total. The day of an attempt is the report's `completedOn`, else its `attemptedOn`; no offset means UTC.
 */
import type { Api } from "../api/endpoints.js";
import type { Report, TestAttempt } from "../api/schemas.js";
import { field, numberOf } from "../fields.js";
import { toServiceTime } from "../parse/dates.js";
import { FINAL_STATUSES } from "../spec/final-statuses.js";
import { attemptTestId } from "./finished-attempts.js";
import type { Notices } from "./notices.js";
import { periodReports, type ReportOutcome } from "./period-reports.js";
import type { Period } from "./periods.js";
import { histogram, perDay, summarize, utcDay } from "./stats-math.js";

/** Reports fetched at once unless told otherwise (`assess mcp` does not). */
const REPORT_CONCURRENCY = 8;

/** The numbers of a period per test (only `testIds` when given), for `reports stats` and `assess mcp`. */
export async function statsOfPeriod(
  notices: Notices,
  api: Api,
  period: Period,
  options: { testIds?: number[]; passMark?: number; concurrency?: number },
) {
  const testIds = [...new Set(options.testIds ?? [])];
  const concurrency = options.concurrency ?? REPORT_CONCURRENCY;
  const { attempts, outcomes } = await periodReports(notices, api, period, testIds, concurrency);
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

/** One test's numbers, as `--json` prints them (score statistics are percentages, rounded to 2 decimals). */
export type TestStats = ReturnType<typeof computeStats>[number];

export function scoreOf(report: Report): number | undefined {
  const percentage = numberOf(report, "scorePercentage");
  if (percentage !== undefined) return percentage;
  const points = numberOf(report, "candidatePoints");
  const total = numberOf(report, "totalTestPoints");
  return points !== undefined && total !== undefined && total > 0 ? (points / total) * 100 : undefined;
}

/** The UTC day the attempt finished on (else started on), when the report gives a readable time. */
export function dayOf(report: Report): string | undefined {
  for (const name of ["completedOn", "attemptedOn"]) {
    const value = field(report, name);
    if (typeof value !== "string" || value.trim() === "") continue;
    const text = value.trim();
    const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) || !text.includes("T") ? text : `${text}Z`;
    const time = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(zoned) ? `${zoned}T00:00:00Z` : zoned);
    if (Number.isFinite(time)) return utcDay(new Date(time));
  }
  return undefined;
}

function statusOf(attempt: TestAttempt, report: Report | undefined): string {
  // `teststatus` in the documented listing, `testStatus` in the real one: field() reads either.
  const value = field(report, "Status") ?? field(attempt, "teststatus");
  return typeof value === "string" && value.trim() !== "" ? value.trim() : "Unknown";
}

/** The statuses a finished attempt ends with, in this order; others the service sends follow by name. */
const statusRank = (status: string) => {
  const rank = (FINAL_STATUSES as readonly string[]).indexOf(status);
  return rank === -1 ? FINAL_STATUSES.length : rank;
};

const round2 = (n: number | undefined) => (n === undefined ? null : Math.round(n * 100) / 100);

/** A percentage of a test's points: negative marking may go below 0, nothing above 100 (a float's hair aside). */
const SCORE_RANGE = { min: -100, max: 100 + 1e-9 };

function newGroup(testId: number | null) {
  return {
    testId,
    testName: null as string | null,
    attempts: 0,
    reports: 0,
    scores: [] as number[],
    statuses: new Map<string, number>(),
    days: [] as string[],
    undated: 0,
    outOfRange: 0,
    failed: [] as Array<{ testInvitationId: number; error: string }>,
  };
}

export function computeStats(input: {
  outcomes: readonly ReportOutcome[];
  /** Tests to show even without attempts (`--test`), in this order; others follow by id. */
  testIds: readonly number[];
  from: string;
  to: string;
  /** The span of days of `perDay` (YYYY-MM-DD): the period's. */
  firstDay: string;
  lastDay: string;
  passMark?: number;
}) {
  const groups = new Map<number | null, ReturnType<typeof newGroup>>();
  const groupOf = (testId: number | null) => {
    if (!groups.has(testId)) groups.set(testId, newGroup(testId));
    return groups.get(testId)!;
  };
  for (const testId of input.testIds) groupOf(testId);

  for (const outcome of input.outcomes) {
    const report = "report" in outcome ? outcome.report : undefined;
    const testId = attemptTestId(outcome.attempt) ?? numberOf(report, "testId");
    const group = groupOf(testId ?? null);
    group.attempts++;
    const status = statusOf(outcome.attempt, report);
    group.statuses.set(status, (group.statuses.get(status) ?? 0) + 1);
    if ("error" in outcome) {
      group.failed.push({ testInvitationId: outcome.attempt.testInvitationId, error: outcome.error.message });
      continue;
    }
    group.reports++;
    const name = field(outcome.report, "testName");
    if (group.testName === null && typeof name === "string") group.testName = name;
    const score = scoreOf(outcome.report);
    if (score !== undefined && score >= SCORE_RANGE.min && score <= SCORE_RANGE.max) group.scores.push(score);
    else if (score !== undefined) group.outOfRange++;
    const day = dayOf(outcome.report);
    if (day === undefined || day < input.firstDay || day > input.lastDay) group.undated++;
    else group.days.push(day);
  }

  const asked = new Set(input.testIds);
  const rest = [...groups.keys()]
    .filter((testId) => testId === null || !asked.has(testId))
    .sort((a, b) => (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY));
  return [...input.testIds, ...rest].map((testId) => {
    const group = groups.get(testId)!;
    const summary = summarize(group.scores);
    const passed =
      input.passMark === undefined ? null : group.scores.filter((score) => score >= input.passMark!).length;
    return {
      testId: group.testId,
      testName: group.testName,
      // The period, as sent to the service.
      from: input.from,
      to: input.to,
      // Finished attempts listed; of those, the reports fetched; of those, the reports with a score.
      attempts: group.attempts,
      reports: group.reports,
      scored: group.scores.length,
      // Per status: the report's `Status`, else the listing's, else `Unknown`.
      statuses: Object.fromEntries(
        [...group.statuses].sort(([a], [b]) => statusRank(a) - statusRank(b) || (a < b ? -1 : 1)),
      ),
      mean: round2(summary.mean),
      median: round2(summary.median),
      p10: round2(summary.p10),
      p90: round2(summary.p90),
      min: round2(summary.min),
      max: round2(summary.max),
      passMark: input.passMark ?? null,
      passed,
      // From 0 to 1, rounded like the statistics (0.61 shows as 61%).
      passRate: passed === null || group.scores.length === 0 ? null : round2(passed / group.scores.length),
      histogram: histogram(group.scores),
      perDay: perDay(group.days, input.firstDay, input.lastDay),
      // Fetched reports with no time, or one outside the period (.NET's 0001-01-01).
      undated: group.undated,
      // Scores outside -100 … 100 % (1e308 from a broken report): in no statistic.
      outOfRange: group.outOfRange,
      failedReports: group.failed,
    };
  });
}
