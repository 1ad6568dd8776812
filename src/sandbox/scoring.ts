/** Deterministic attempt results: seeded by the invitation id so a completed attempt always scores the same. */

import type { FinalStatus } from "../spec/final-statuses.js";
import { mulberry32, type Rng } from "./prng.js";
import type { AttemptResult, Test } from "./state.js";

export function performanceCategory(percentage: number): string {
  if (percentage >= 85) return "Excellent";
  if (percentage >= 70) return "Good";
  if (percentage >= 50) return "Average";
  return "Poor";
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function scoreAttempt(test: Test, status: FinalStatus, rng: Rng): AttemptResult {
  // Ability: average of three uniforms gives a bell-ish spread around 0.65.
  const ability = Math.min(0.98, 0.25 + ((rng() + rng() + rng()) / 3) * 0.8);
  // A candidate who left or was terminated stops somewhere inside the test: later sections score 0.
  const stopAt = status === "Complete" ? test.sections.length : Math.floor(rng() * test.sections.length);
  const sections = test.sections.map((s, i) => {
    if (i > stopAt)
      return { sectionId: s.sectionId, candidateScore: 0, sectionScore: s.points, sectionTimeTaken: 0 };
    const partial = i === stopAt && status !== "Complete" ? rng() : 1;
    const share = Math.min(1, Math.max(0, ability + (rng() - 0.5) * 0.3)) * partial;
    const step = s.sectionType === "MCQ" ? 1 : 0.5;
    const candidateScore = Math.round((s.points * share) / step) * step;
    const sectionTimeTaken = Math.max(1, Math.round(s.duration * (0.55 + rng() * 0.45) * partial));
    return { sectionId: s.sectionId, candidateScore, sectionScore: s.points, sectionTimeTaken };
  });
  const totalScore = sections.reduce((n, s) => n + s.sectionScore, 0);
  const candidateScore = round1(sections.reduce((n, s) => n + s.candidateScore, 0));
  const scorePercentage = totalScore === 0 ? 0 : round1((candidateScore / totalScore) * 100);
  return {
    totalScore,
    candidateScore,
    scorePercentage,
    performanceCategory: performanceCategory(scorePercentage),
    timeTakenMinutes: sections.reduce((n, s) => n + s.sectionTimeTaken, 0),
    sections,
  };
}

export function scoreForInvitation(test: Test, status: FinalStatus, testInvitationId: number): AttemptResult {
  return scoreAttempt(test, status, mulberry32(testInvitationId * 2654435761));
}
