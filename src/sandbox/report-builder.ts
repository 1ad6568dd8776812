/** A finished attempt's report as the real service answers it (mixed case: Status, PerformanceCategory). */
import { isoSeconds } from "./dates.js";
import type { Invitation, Test } from "./state.js";

export type ReportType = 1 | 2 | 3;

export interface ReportSection {
  sectionId: number;
  sectionName: string;
  candidateScore: number;
  sectionScore: number;
  noOfQue: number;
  sectionTime: number;
  sectionTimeTaken: number;
}

export interface Report {
  testInvitationId: number;
  testId: number;
  candidateEmail: string;
  candidateName: string;
  attemptedOn: string;
  completedOn: string | null;
  Status: string;
  scorePercentage: number;
  candidatePoints: number;
  totalTestPoints: number;
  testName: string;
  pdfReportUrl: string;
  PerformanceCategory: string;
  /** Minutes. */
  timeTaken: number;
  sections: ReportSection[];
  skills?: Array<{ skillName: string; candidateScore: number; skillScore: number; percentage: number }>;
}

/**
 * reportType 1 = by section, 2 = by skill, 3 = both. Sections are always present (clients read them), the
 * by-skill breakdown is added for 2 and 3.
 */
export function buildReport(
  inv: Invitation,
  test: Test,
  pdfReportUrl: string,
  reportType: ReportType = 1,
): Report {
  const result = inv.result;
  if (!result) throw new Error(`invitation ${inv.testInvitationId} has no result`);
  const sections = test.sections.map((s) => {
    const r = result.sections.find((x) => x.sectionId === s.sectionId);
    return {
      sectionId: s.sectionId,
      sectionName: s.sectionName,
      candidateScore: r?.candidateScore ?? 0,
      sectionScore: r?.sectionScore ?? s.points,
      noOfQue: s.questions,
      sectionTime: s.duration,
      sectionTimeTaken: r?.sectionTimeTaken ?? 0,
    };
  });
  const report: Report = {
    testInvitationId: inv.testInvitationId,
    testId: inv.testId,
    candidateEmail: inv.email,
    candidateName: inv.name,
    attemptedOn: inv.startedAt ?? inv.completedAt ?? isoSeconds(new Date(inv.createdAt)),
    completedOn: inv.completedAt ?? null,
    Status: inv.status,
    scorePercentage: result.scorePercentage,
    candidatePoints: result.candidateScore,
    totalTestPoints: result.totalScore,
    testName: test.testName,
    pdfReportUrl,
    PerformanceCategory: result.performanceCategory,
    timeTaken: result.timeTakenMinutes,
    sections,
  };
  if (reportType !== 1) {
    const bySkill = new Map<string, { candidateScore: number; skillScore: number }>();
    test.sections.forEach((s, i) => {
      const entry = bySkill.get(s.skill) ?? { candidateScore: 0, skillScore: 0 };
      entry.candidateScore += sections[i]?.candidateScore ?? 0;
      entry.skillScore += s.points;
      bySkill.set(s.skill, entry);
    });
    report.skills = [...bySkill].map(([skillName, e]) => ({
      skillName,
      candidateScore: Math.round(e.candidateScore * 10) / 10,
      skillScore: e.skillScore,
      percentage: e.skillScore === 0 ? 0 : Math.round((e.candidateScore / e.skillScore) * 1000) / 10,
    }));
  }
  return report;
}
