/**
 * A new attempt for candidates who finished (`invite bulk --reattempt-finished`): one request per candidate,
 * with a ledger per test keyed by the candidate (`reattemptKey`), so that a rerun never gives one a second new
 * attempt, whatever attempts they finished since, and a lost answer is uncertain, not resent.
 */
import { toJson } from "../../api/json.js";
import type * as s from "../../api/schemas.js";
import { type FinishedAttempt, finishedKey, reattemptKey } from "../../core/finished.js";
import type { Fields } from "../../fields.js";
import { type Job, ledgerTarget, type Service } from "./index.js";

/** The job over `attempts` (their rows grouped by test); `answers` fills as the service answers. */
export function reattemptJob(
  service: Service,
  body: s.ReattemptBody,
  attempts: readonly FinishedAttempt[],
): Job<FinishedAttempt, s.ReattemptBody> & { answers: Array<[FinishedAttempt, Fields]> } {
  const json = toJson<s.ReattemptBody>(body);
  const byRow = new Map(attempts.map((attempt) => [finishedKey(attempt.testId, attempt.email), attempt]));
  const target = ledgerTarget(service, "assess");
  const answers: Array<[FinishedAttempt, Fields]> = [];
  return {
    kind: "reattempt",
    maxChunk: 1,
    target: (group) => ({ ...target, testId: Number(group) }),
    prepare: (attempt) => ({ key: reattemptKey(attempt.email), label: attempt.email, json }),
    send: async (group, rows) => {
      for (const row of rows) {
        const attempt = byRow.get(finishedKey(group, row.label))!;
        // The request names only the attempt: the invitation book is told whose it is.
        const invitee = { testId: attempt.testId, email: attempt.email };
        const answer = await service.api.call("reattempt", [attempt.testInvitationId], body, {
          book: { invitee },
        });
        answers.push([attempt, answer]);
      }
      return undefined;
    },
    answers,
  };
}
