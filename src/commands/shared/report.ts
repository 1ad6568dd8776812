/** How a report is shown, by `reports get` and `employees report`. */
import type { Context } from "../../context.js";
import { field, findKey, isRecord } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";

/** The report's documented fields (`Status` and `PerformanceCategory` in the service's casing). */
const REPORT_COLUMNS: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testId", header: "TEST" },
  { key: "testName", header: "TEST NAME" },
  { key: "candidateName", header: "CANDIDATE" },
  { key: "candidateEmail", header: "EMAIL" },
  { key: "Status", header: "STATUS" },
  { key: "attemptedOn", header: "ATTEMPTED ON" },
  { key: "scorePercentage", header: "SCORE %" },
  { key: "candidatePoints", header: "POINTS" },
  { key: "totalTestPoints", header: "OUT OF" },
  { key: "PerformanceCategory", header: "PERFORMANCE" },
  { key: "timeTaken", header: "TIME TAKEN", unit: "min" },
  { key: "pdfReportUrl", header: "PDF REPORT URL" },
];

/** The first of these fields the row has. */
const either =
  (...names: string[]) =>
  (row: Row) =>
    names.map((name) => field(row, name)).find((value) => value !== undefined);

const SECTION_COLUMNS: Column[] = [
  { key: "sectionName", header: "SECTION" },
  { key: "candidateScore", header: "SCORE" },
  { key: "sectionScore", header: "OUT OF" },
  { key: "noOfQue", header: "QUESTIONS" },
  { key: "sectionTimeTaken", header: "TIME TAKEN", unit: "min" },
];

/**
 * The lists of a report, each shown as a table of its own. By-skill reports (`--type 2` or `3`) add skills: the
 * real service's are question banks (qbName, candidateQbScore, qbScore), the sandbox's skills.
 */
const LISTS: Record<string, Column[]> = {
  sections: SECTION_COLUMNS,
  skills: [
    { key: "sectionName", header: "SECTION" },
    { key: "skill", header: "SKILL", get: either("qbName", "skillName") },
    { key: "score", header: "SCORE", get: either("candidateQbScore", "candidateScore") },
    { key: "outOf", header: "OUT OF", get: either("qbScore", "skillScore") },
    { key: "noOfQue", header: "QUESTIONS" },
  ],
};

/** A report (of `reports get` and `employees report`): --json as the service sent it, else these columns and lists. */
export async function showReport(ctx: Context, report: Row): Promise<void> {
  await ctx.out.record(report, reportColumns(report));
  if (ctx.out.format !== "table" || ctx.out.options.fields) return;
  for (const [name, columns] of Object.entries(LISTS)) {
    const list = field(report, name);
    if (Array.isArray(list) && list.length > 0) await ctx.out.list(list.filter(isRecord), columns);
  }
}

/** The documented columns, then any other plain field the answer carries, so that nothing sent is hidden. */
function reportColumns(report: Row): Column[] {
  const declared = new Set(
    [...REPORT_COLUMNS.map((c) => c.key), ...Object.keys(LISTS)].map((k) => findKey(report, k)),
  );
  const extra = Object.keys(report)
    .filter((key) => !declared.has(key) && !Array.isArray(report[key]) && !isRecord(report[key]))
    .map((key) => ({ key }));
  return [...REPORT_COLUMNS, ...extra];
}
