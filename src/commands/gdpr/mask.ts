import type { Context } from "../../context.js";
import { validEmail } from "../shared/email.js";
import { flag } from "../shared/flags.js";
import { confirmOrYes, requireValues } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  email: flag.email("the candidate's e-mail"),
  invitation: flag.id("mask only this attempt's record", "<testInvitationId>"),
  yes: flag.bool("do not ask for confirmation (required without prompts)").short("-y"),
};

export default verb({
  summary: "Mask every record of a candidate, or one attempt's record (asks for confirmation)",
  flags,
  examples: [
    "assess gdpr mask --email ada@example.com",
    "assess gdpr mask --email emeka.andersson@example.org --invitation 100002 --yes",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
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
