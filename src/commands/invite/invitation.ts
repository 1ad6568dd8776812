/**
 * What the invite verbs share: the invitation window (`invite bulk` too), the flags of one candidate's
 * invitation, and how an invitation is shown.
 */
import type { Invitation } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import type { Column } from "../../output/output.js";
import { refusePastEnd, toServiceTime } from "../../parse/dates.js";
import { PROCTORING_MODES } from "../../spec/proctoring-modes.js";
import { timezone } from "../shared/common-flags.js";
import { validEmail } from "../shared/email.js";
import { flag } from "../shared/flags.js";
import type { OptionsOf } from "../shared/verb.js";

/** --start, --end and --timezone of an invitation; `what` names it ("the invitation", "the invitations"). */
export const windowFlags = (opens: string, closes: string) => ({
  start: flag.date("start", opens),
  end: flag.date("end", closes),
  timezone: timezone(),
});

/** The proctoring mode of an invitation, as the API's schema lists them. */
export const proctoringFlag = () => flag.choice(PROCTORING_MODES, "proctoring mode", { value: "<mode>" });

/** --start and --end as the service writes times: the end after the start, and not past. */
export function serviceWindow({ start, end }: { start?: Date; end?: Date }) {
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
  return { start: start && toServiceTime(start), end: end && toServiceTime(end) };
}

/** What happens around the test: --callback-url, --redirect-url, --hide-instruction. */
export const aroundFlags = () => ({
  callbackUrl: flag.text("<url>", "address that receives the test-completion notification"),
  redirectUrl: flag.text("<url>", "address the candidate is sent to after the test"),
  hideInstruction: flag.bool("skip the test instruction page"),
});

/** The flags of one candidate's invitation, in `invite send` and `invite link`. */
export const candidateFlags = () => ({
  email: flag.email("candidate e-mail"),
  name: flag.text("<name>", "candidate full name"),
  ...aroundFlags(),
  sendEmail: flag.bool("let the service e-mail the invitation to the candidate"),
  anonymous: flag.bool("no e-mail or name needed: the service generates both"),
});
type CandidateFlags = OptionsOf<ReturnType<typeof candidateFlags>>;

/** The candidate's --email and --name, asked for when missing. */
export function candidateValues(o: CandidateFlags) {
  return o.anonymous
    ? []
    : [
        { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
        { flag: "--name", value: o.name, question: "Candidate full name" },
      ];
}

/** The body fields `invite send` and `invite link` share, in the order both send them. */
export function candidateFields(o: CandidateFlags, email: string | undefined, name: string | undefined) {
  return {
    emailId: email,
    fullName: name,
    callbackURL: o.callbackUrl,
    redirectURL: o.redirectUrl,
    disableMandatoryFields: o.anonymous ? (1 as const) : undefined,
    hideInstruction: o.hideInstruction ? (1 as const) : undefined,
  };
}

export const INVITATION_COLUMNS: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

/**
 * Says who was invited where, then prints the invitation: Pending where its answer has none (send's); an answer
 * that could not be read was warned of (context.ts).
 */
export async function showInvitation(
  ctx: Context,
  answer: Invitation,
  email: string | undefined,
  where: string,
) {
  if (ctx.unreadAnswer(answer)) return;
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} ${where} (invitation ${answer.testInvitationId})`,
  );
  const invitation = field(answer, "status") == null ? { ...answer, status: "Pending" } : answer;
  await ctx.out.record(invitation, INVITATION_COLUMNS);
}
