import type { InviteBody } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { toServiceTime } from "../../parse/dates.js";
import { date, id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { requireValues, resolveTestId } from "../shared/options.js";
import { candidateValues, checkWindow, dropUndefined, emailFlag, showInvitation } from "./shared.js";

export const options = z.object({
  test: id().optional(),
  email: emailFlag().optional(),
  name: z.string().optional(),
  callbackUrl: z.string().optional(),
  redirectUrl: z.string().optional(),
  sendEmail: z.boolean().optional(),
  start: date("start").optional(),
  end: date("end").optional(),
  timezone: id().optional(),
  proctoring: z.enum(["disabled", "image", "video"]).optional(),
  hideInstruction: z.boolean().optional(),
  stakeholders: z.string().optional(),
  anonymous: z.boolean().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const testId = await resolveTestId(ctx, o.test);
  const anonymous = o.anonymous === true;
  const [email, name] = anonymous ? [undefined, undefined] : await requireValues(ctx, candidateValues(o));
  const { start, end } = o;
  checkWindow(start, end);
  const body = dropUndefined<InviteBody>({
    emailId: email,
    fullName: name,
    callbackURL: o.callbackUrl,
    redirectURL: o.redirectUrl,
    disableMandatoryFields: anonymous ? 1 : undefined,
    hideInstruction: o.hideInstruction ? 1 : undefined,
    sendEmail: o.sendEmail ? "yes" : undefined,
    stakeholderEmails: o.stakeholders,
    startDateTime: start && toServiceTime(start),
    endDateTime: end && toServiceTime(end),
    timeZoneId: o.timezone,
    ProctoringMode: o.proctoring,
  });
  const client = await ctx.client();
  const invitation = await client.invitations.create(testId, body);
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} to test ${testId} (invitation ${invitation.testInvitationId})`,
  );
  await showInvitation(ctx, invitation);
  return 0;
}
