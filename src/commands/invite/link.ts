import { UsageError } from "../../errors.js";
import type { Handler } from "../shared/kit.js";
import { parseId, requireValues, resolveTestId } from "../shared/options.js";
import { dropUndefined, newInvitationColumns, validEmail } from "./shared.js";

const link: Handler = async (ctx, _args, o) => {
  const testId = await resolveTestId(ctx, o.test);
  const anonymous = o.anonymous === true;
  const [linkId, email, name] = await requireValues(ctx, [
    { flag: "--link", value: o.link, question: "Test link id" },
    ...(anonymous
      ? []
      : [
          { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
          { flag: "--name", value: o.name, question: "Candidate full name" },
        ]),
  ]);
  if (email !== undefined && validEmail(email)) throw new UsageError(`--email: ${validEmail(email)}`);
  const testLinkId = parseId(linkId, "--link");
  const api = await ctx.api();
  const invitation = await api.inviteThroughLink(
    testId,
    testLinkId,
    dropUndefined({
      emailId: email,
      fullName: name,
      callbackURL: o.callbackUrl as string | undefined,
      redirectURL: o.redirectUrl as string | undefined,
      disableMandatoryFields: anonymous ? (1 as const) : undefined,
      hideInstruction: o.hideInstruction ? (1 as const) : undefined,
      sendEmail: o.sendEmail ? (1 as const) : undefined,
    }),
  );
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} through link ${testLinkId} (invitation ${invitation.testInvitationId})`,
  );
  await ctx.out.record(invitation, newInvitationColumns(ctx.out.format));
  return 0;
};
export default link;
