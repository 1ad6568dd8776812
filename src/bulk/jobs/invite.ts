/** A bulk invite: candidates to a test, a chunk per request; each test (a group) has its own ledger. */
import { OPERATIONS } from "../../api/operations/index.js";
import * as s from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { candidateProblems, candidateRow } from "../rows/invites.js";
import { type Job, ledgerTarget, type Service } from "./index.js";

/** The job of invites with `settings` (dates, time zone, proctoring: every chunk carries them), checked first. */
export function inviteJob(
  service: Service,
  settings: s.BulkInviteSettings,
): Job<s.BulkCandidate, s.BulkCandidate> {
  const checked = checkInviteSettings(settings);
  const target = ledgerTarget(service, "assess");
  return {
    kind: "invite",
    maxChunk: OPERATIONS.bulkInvite.limits.items,
    target: (group) => ({ ...target, testId: Number(group) }),
    prepare: prepareCandidate,
    // The service's `false` refuses the whole chunk.
    send: async (group, rows) =>
      (await service.api.bulkInvite(Number(group), checked, rows))
        ? undefined
        : { refused: "the service answered false: no candidate of this request was invited" },
  };
}

/** A bulk invite's settings, checked before any row is read: every chunk would carry them. */
function checkInviteSettings(settings: s.BulkInviteSettings): s.BulkInviteSettings {
  const parsed = s.BulkInviteSettings.safeParse(settings);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `settings.${issue.path.map(String).join(".")}: ${issue.message}`,
  );
  throw new UsageError(`Invalid bulk invite settings: ${lines.join("; ")}`, undefined, lines);
}

/** A candidate given in memory: checked and keyed as a file's rows are (bulk/rows/invites.ts). */
export function prepareCandidate(row: s.BulkCandidate) {
  const email = typeof row?.email === "string" ? row.email.trim() : "";
  const name = typeof row?.name === "string" ? row.name.trim() : "";
  const problems = candidateProblems(email, name);
  return problems.length > 0 ? { invalid: problems.join("; ") } : candidateRow(email, name);
}
