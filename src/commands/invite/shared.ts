/** What the invite verbs share: their common options, the invitation window, printing an invitation made. */
import type { Invitation } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import type { Column } from "../../output/output.js";
import { refusePastEnd, toServiceTime } from "../../parse/dates.js";
import { date, id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { emailFlag, validEmail } from "../shared/email.js";

const INVITATION_COLUMNS: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

/** Says who was invited where, then prints the invitation: Pending where its answer has none (send's). */
export async function showInvitation(
  ctx: Context,
  answer: Invitation,
  email: string | undefined,
  where: string,
): Promise<void> {
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} ${where} (invitation ${answer.testInvitationId})`,
  );
  const invitation = field(answer, "status") == null ? { ...answer, status: "Pending" } : answer;
  await ctx.out.record(invitation, INVITATION_COLUMNS);
}

/** --start, --end and --timezone of an invitation. */
export const windowOptions = {
  start: date("start").optional(),
  end: date("end").optional(),
  timezone: id().optional(),
};

/** The options of one candidate's invitation, in `invite send` and `invite link`. */
export const candidateOptions = {
  email: emailFlag().optional(),
  name: z.string().optional(),
  callbackUrl: z.string().optional(),
  redirectUrl: z.string().optional(),
  sendEmail: z.boolean().optional(),
  hideInstruction: z.boolean().optional(),
  anonymous: z.boolean().optional(),
};

/** The candidate's --email and --name, asked for when missing. */
export function candidateValues(o: { email?: string; name?: string }) {
  return [
    { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
    { flag: "--name", value: o.name, question: "Candidate full name" },
  ];
}

/** The body fields `invite send` and `invite link` share, in the order both send them. */
export function candidateFields(
  o: { callbackUrl?: string; redirectUrl?: string; anonymous?: boolean; hideInstruction?: boolean },
  email: string | undefined,
  name: string | undefined,
) {
  return {
    emailId: email,
    fullName: name,
    callbackURL: o.callbackUrl,
    redirectURL: o.redirectUrl,
    disableMandatoryFields: o.anonymous ? (1 as const) : undefined,
    hideInstruction: o.hideInstruction ? (1 as const) : undefined,
  };
}

/** --start and --end as the service writes times: the end after the start, and not past. */
export function serviceWindow({ start, end }: { start?: Date; end?: Date }) {
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
  return { start: start && toServiceTime(start), end: end && toServiceTime(end) };
}
