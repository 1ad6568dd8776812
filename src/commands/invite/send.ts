import type { InviteBody } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { parseDate, refusePastEnd, toServiceTime } from "../../parse/dates.js";
import type { Handler } from "../shared/kit.js";
import { parseId, requireValues, resolveTestId } from "../shared/options.js";
import { dropUndefined, newInvitationColumns, validEmail } from "./shared.js";

const send: Handler = async (ctx, _args, o) => {
  const testId = await resolveTestId(ctx, o.test);
  const anonymous = o.anonymous === true;
  const [email, name] = anonymous
    ? [undefined, undefined]
    : await requireValues(ctx, [
        { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
        { flag: "--name", value: o.name, question: "Candidate full name" },
      ]);
  const start = o.start === undefined ? undefined : parseDate(String(o.start), "start", "--start");
  const end = o.end === undefined ? undefined : parseDate(String(o.end), "end", "--end");
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
  if (email !== undefined && validEmail(email)) throw new UsageError(`--email: ${validEmail(email)}`);
  const body: InviteBody = {
    emailId: email,
    fullName: name,
    callbackURL: o.callbackUrl as string | undefined,
    redirectURL: o.redirectUrl as string | undefined,
    disableMandatoryFields: anonymous ? 1 : undefined,
    hideInstruction: o.hideInstruction ? 1 : undefined,
    sendEmail: o.sendEmail ? "yes" : undefined,
    stakeholderEmails: o.stakeholders as string | undefined,
    startDateTime: start && toServiceTime(start),
    endDateTime: end && toServiceTime(end),
    timeZoneId: o.timezone === undefined ? undefined : parseId(o.timezone, "--timezone"),
    ProctoringMode: o.proctoring as InviteBody["ProctoringMode"],
  };
  const api = await ctx.api();
  const invitation = await api.invite(testId, dropUndefined(body));
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} to test ${testId} (invitation ${invitation.testInvitationId})`,
  );
  await ctx.out.record(invitation, newInvitationColumns(ctx.out.format));
  return 0;
};
export default send;
