import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import { parseId } from "../../parse/numbers.js";
import * as z from "../../parse/zod.js";
import { requireValues, resolveTestId } from "../shared/options.js";
import { candidateValues, dropUndefined, emailFlag, showInvitation } from "./shared.js";

export const options = z.object({
  test: id().optional(),
  link: id().optional(),
  email: emailFlag().optional(),
  name: z.string().optional(),
  callbackUrl: z.string().optional(),
  redirectUrl: z.string().optional(),
  sendEmail: z.boolean().optional(),
  hideInstruction: z.boolean().optional(),
  anonymous: z.boolean().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const testId = await resolveTestId(ctx, o.test);
  const anonymous = o.anonymous === true;
  const [linkId, email, name] = await requireValues(ctx, [
    { flag: "--link", value: o.link, question: "Test link id" },
    ...(anonymous ? [] : candidateValues(o)),
  ]);
  // A prompted answer is read as the flag would have been.
  const testLinkId = parseId(linkId, "--link");
  const client = await ctx.client();
  const invitation = await client.testLinks.invite(
    testId,
    testLinkId,
    dropUndefined({
      emailId: email,
      fullName: name,
      callbackURL: o.callbackUrl,
      redirectURL: o.redirectUrl,
      disableMandatoryFields: anonymous ? (1 as const) : undefined,
      hideInstruction: o.hideInstruction ? (1 as const) : undefined,
      sendEmail: o.sendEmail ? (1 as const) : undefined,
    }),
  );
  ctx.success(
    `Invited ${email ?? "an anonymous candidate"} through link ${testLinkId} (invitation ${invitation.testInvitationId})`,
  );
  await showInvitation(ctx, invitation);
  return 0;
}
