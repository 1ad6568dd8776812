/**
 * Reminders (`invite remind`, the MCP tool `remind_candidates`): each candidate re-invited to their test with the
 * e-mail sent and a new window (the service resets a pending or expired invitation: API-NOTES.md), one request
 * each, with a ledger per test keyed by the candidate and the invitation being chased (when it was last sent): a
 * rerun never reminds anyone twice for one invitation, and a lost answer is uncertain, not resent. The invitation
 * book records each reminder as the API layer sends it (core/invitation-book.ts, `how: "remind"`).
 */
import { toJson } from "../../api/json.js";
import * as s from "../../api/schemas.js";
import type { Reminder } from "../../core/invitation-status.js";
import { type Job, ledgerTarget, type Service } from "./index.js";

/** The request of one reminder: the candidate, the e-mail sent, the new end, and the invitation's settings again. */
export function reminderBody({ candidate, newEnd }: Reminder): s.InviteBody {
  const keep = s.InviteBody.unwrap()
    .pick({
      callbackURL: true,
      redirectURL: true,
      hideInstruction: true,
      stakeholderEmails: true,
      timeZoneId: true,
      ProctoringMode: true,
    })
    .safeParse(candidate.keep ?? {});
  return s.InviteBody.parse({
    ...(keep.success ? keep.data : {}),
    emailId: candidate.email,
    fullName: candidate.name || candidate.email.split("@")[0],
    sendEmail: "yes",
    endDateTime: newEnd,
  });
}

/** The job of `reminders` (rows grouped by test). */
export function remindJob(service: Service): Job<Reminder, s.InviteBody> {
  const target = ledgerTarget(service, "assess");
  return {
    kind: "remind",
    maxChunk: 1,
    target: (group) => ({ ...target, testId: Number(group) }),
    prepare: (reminder) => ({
      key: `${reminder.candidate.email}\n${reminder.candidate.lastSentAt}`,
      label: reminder.candidate.email,
      json: toJson(reminderBody(reminder)),
    }),
    send: async (group, rows) => {
      for (const row of rows) {
        const body = JSON.parse(
          Buffer.from(row.bytes.buffer, row.bytes.byteOffset + row.start, row.end - row.start).toString(),
        ) as s.InviteBody;
        await service.api.call("invite", [Number(group)], body, { book: { how: "remind" } });
      }
      return undefined;
    },
  };
}
