/** One flat row per attempt for `reports export`: fixed columns, then one column per section name. */
import type { Report, TestAttempt } from "../../api/schemas.js";
import type { Column, Row } from "../../output/output.js";

const FIXED: Array<[key: string, header: string]> = [
  ["testInvitationId", "Invitation ID"],
  ["candidateName", "Candidate"],
  ["candidateEmail", "Email"],
  ["testId", "Test ID"],
  ["testName", "Test"],
  ["status", "Status"],
  ["scorePercentage", "Score %"],
  ["candidatePoints", "Points"],
  ["totalTestPoints", "Out of"],
  ["performanceCategory", "Performance"],
  ["attemptedOn", "Attempted on"],
];

const SECTION_PREFIX = "section:";

/** The report's answer first; the attempt record fills what the report leaves out. */
export function exportRow(attempt: TestAttempt, report: Report): Row {
  const row: Row = {
    testInvitationId: attempt.testInvitationId,
    candidateName: report.candidateName ?? attempt.name ?? null,
    candidateEmail: report.candidateEmail ?? attempt.email ?? null,
    testId: report.testId ?? attempt.testId ?? null,
    testName: report.testName ?? null,
    status: report.Status ?? attempt.teststatus ?? null,
    scorePercentage: report.scorePercentage ?? null,
    candidatePoints: report.candidatePoints ?? null,
    totalTestPoints: report.totalTestPoints ?? null,
    performanceCategory: report.PerformanceCategory ?? null,
    attemptedOn: report.attemptedOn ?? null,
  };
  for (const section of report.sections ?? []) {
    const name = section.sectionName ?? `Section ${section.sectionId ?? "?"}`;
    row[`${SECTION_PREFIX}${name}`] = section.candidateScore ?? null;
  }
  return row;
}

/**
 * The fixed columns plus every section seen, in first-seen order, so tests with different sections share
 * one sheet. Keys may hold dots (`Node.js`), so values are read by key, never as a path.
 */
export function exportColumns(rows: Row[]): Column[] {
  const sections = new Set<string>();
  for (const row of rows)
    for (const key of Object.keys(row)) if (key.startsWith(SECTION_PREFIX)) sections.add(key);
  return [
    ...FIXED.map(([key, header]) => ({ key, header, get: (row: Row) => row[key] })),
    ...[...sections].map((key) => ({
      key,
      header: `Section: ${key.slice(SECTION_PREFIX.length)}`,
      get: (row: Row) => row[key],
    })),
  ];
}
