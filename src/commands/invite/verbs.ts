/**
 * The verbs of one invitation (send, link, cancel, reattempt), and the invitation window `invite bulk` takes
 * too.
 */
import type { Invitation, InviteBody } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import { type Column, everyField } from "../../output/output.js";
import { refusePastEnd, toServiceTime } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { date, id, parsed } from "../../parse/flags.js";
import { parseId } from "../../parse/numbers.js";
import * as z from "../../parse/zod.js";
import { emailFlag, parseStakeholders, validEmail } from "../shared/email.js";
import { dropUndefined } from "../shared/fields.js";
import { missingFlags, requireValues, resolveTestId } from "../shared/options.js";

/** --start, --end and --timezone of an invitation. */
export const windowOptions = {
  start: date("start").optional(),
  end: date("end").optional(),
  timezone: id().optional(),
};

/** --start and --end as the service writes times: the end after the start, and not past. */
export function serviceWindow({ start, end }: { start?: Date; end?: Date }) {
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
  return { start: start && toServiceTime(start), end: end && toServiceTime(end) };
}

/** What happens around the test: --callback-url, --redirect-url, --hide-instruction. */
const aroundOptions = {
  callbackUrl: z.string().optional(),
  redirectUrl: z.string().optional(),
  hideInstruction: z.boolean().optional(),
};

/** The options of one candidate's invitation, in `invite send` and `invite link`. */
const candidateOptions = {
  email: emailFlag().optional(),
  name: z.string().optional(),
  ...aroundOptions,
  sendEmail: z.boolean().optional(),
  anonymous: z.boolean().optional(),
};
type CandidateFlags = z.infer<ReturnType<typeof z.object<typeof candidateOptions>>>;

/** The candidate's --email and --name, asked for when missing. */
function candidateValues(o: CandidateFlags) {
  return o.anonymous
    ? []
    : [
        { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
        { flag: "--name", value: o.name, question: "Candidate full name" },
      ];
}

/** The body fields `invite send` and `invite link` share, in the order both send them. */
function candidateFields(o: CandidateFlags, email: string | undefined, name: string | undefined) {
  return {
    emailId: email,
    fullName: name,
    callbackURL: o.callbackUrl,
    redirectURL: o.redirectUrl,
    disableMandatoryFields: o.anonymous ? (1 as const) : undefined,
    hideInstruction: o.hideInstruction ? (1 as const) : undefined,
  };
}

const INVITATION_COLUMNS: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

/**
 * Says who was invited where, then prints the invitation: Pending where its answer has none (send's); an answer
 * that could not be read was warned of (context.ts).
 */
async function showInvitation(ctx: Context, answer: Invitation, email: string | undefined, where: string) {
  if (ctx.unreadAnswer(answer)) return;
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} ${where} (invitation ${answer.testInvitationId})`,
  );
  const invitation = field(answer, "status") == null ? { ...answer, status: "Pending" } : answer;
  await ctx.out.record(invitation, INVITATION_COLUMNS);
}

const sendOptions = z.object({
  test: id().optional(),
  ...candidateOptions,
  ...windowOptions,
  proctoring: z.enum(["disabled", "image", "video"]).optional(),
  // The service's word for "tell no one" is `disable`.
  stakeholders: parsed((text) => parseStakeholders(text, FLAG, "disable") ?? "disable").optional(),
});

export const send = {
  options: sendOptions,
  async run(ctx: Context, o: z.infer<typeof sendOptions>) {
    const candidate = candidateValues(o);
    const testId = await resolveTestId(ctx, o.test, missingFlags(candidate));
    const [email, name] = await requireValues(ctx, candidate);
    const { start, end } = serviceWindow(o);
    const body = dropUndefined<InviteBody>({
      ...candidateFields(o, email, name),
      sendEmail: o.sendEmail ? "yes" : undefined,
      stakeholderEmails: o.stakeholders,
      startDateTime: start,
      endDateTime: end,
      timeZoneId: o.timezone,
      ProctoringMode: o.proctoring,
    });
    const client = await ctx.client();
    await showInvitation(ctx, await client.invitations.create(testId, body), email, `to test ${testId}`);
    return 0;
  },
};

const linkOptions = z.object({ test: id().optional(), link: id().optional(), ...candidateOptions });

export const link = {
  options: linkOptions,
  async run(ctx: Context, o: z.infer<typeof linkOptions>) {
    const required = [{ flag: "--link", value: o.link, question: "Test link id" }, ...candidateValues(o)];
    const testId = await resolveTestId(ctx, o.test, missingFlags(required));
    const [linkId, email, name] = await requireValues(ctx, required);
    // A prompted answer is read as the flag would have been.
    const testLinkId = parseId(linkId, "--link");
    const client = await ctx.client();
    const invitation = await client.testLinks.invite(
      testId,
      testLinkId,
      dropUndefined({
        ...candidateFields(o, email, name),
        sendEmail: o.sendEmail ? (1 as const) : undefined,
      }),
    );
    await showInvitation(ctx, invitation, email, `through link ${testLinkId}`);
    return 0;
  },
};

const invitationId = z.tuple([id()]);

export const cancel = {
  args: invitationId,
  async run(ctx: Context, _o: unknown, [testInvitationId]: z.infer<typeof invitationId>) {
    const client = await ctx.client();
    const answer = await client.invitations.cancel(testInvitationId);
    ctx.success(`Invitation ${testInvitationId} cancelled`);
    const cancelled = { testInvitationId, status: "cancelled", ...answer };
    await ctx.out.record(cancelled, everyField(cancelled, INVITATION_COLUMNS));
    return 0;
  },
};

const reattemptOptions = z.object({ ...windowOptions, ...aroundOptions });

export const reattempt = {
  options: reattemptOptions,
  args: invitationId,
  async run(ctx: Context, o: z.infer<typeof reattemptOptions>, [previous]: z.infer<typeof invitationId>) {
    const { start, end } = serviceWindow(o);
    const client = await ctx.client();
    // The service spells these fields with capitals, unlike the invite body.
    const answer = await client.invitations.reattempt(
      previous,
      dropUndefined({
        StartDateTime: start,
        EndDateTime: end,
        TimeZoneId: o.timezone,
        CallbackUrl: o.callbackUrl,
        RedirectUrl: o.redirectUrl,
        hideInstruction: o.hideInstruction ? (1 as const) : undefined,
      }),
    );
    // The id may come as a numeric string ("50123"): the same attempt's, not a new one.
    const newId = answer.testInvitationId;
    ctx.success(
      newId && Number(newId) !== previous
        ? `Reattempt allowed: new invitation ${String(newId)}`
        : `Reattempt allowed for invitation ${previous}`,
    );
    await ctx.out.record(answer, everyField(answer, INVITATION_COLUMNS));
    return 0;
  },
};
