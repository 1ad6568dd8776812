import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { emailFlag, validEmail } from "../shared/email.js";
import { confirmOrYes, requireValues } from "../shared/options.js";

export const options = z.object({
  email: emailFlag().optional(),
  invitation: id().optional(),
  yes: z.boolean().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>) {
  const [email] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
  ]);
  const { invitation } = o;
  const scope = invitation
    ? `the record of attempt ${invitation} of ${email}`
    : `every record of ${email} in the account`;
  await confirmOrYes(ctx, o.yes, `Mask ${scope}? This cannot be undone.`);
  const client = await ctx.client();
  const result = await client.gdpr.mask({
    CandidateEmail: email!,
    ...(invitation ? { testinvitationId: invitation } : {}),
  });
  ctx.success(`${result}: masking ${scope}`);
  if (ctx.out.isJson) ctx.out.json({ result, email, testInvitationId: invitation ?? null });
  return 0;
}
