import { UsageError } from "../../errors.js";
import { validEmail } from "../invite/shared.js";
import type { Handler } from "../shared/kit.js";
import { confirmOrYes, parseId, requireValues } from "../shared/options.js";

const mask: Handler = async (ctx, _args, o) => {
  const [email] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
  ]);
  const problem = validEmail(email!);
  if (problem) throw new UsageError(`--email: ${problem}`);
  const invitation = o.invitation === undefined ? undefined : parseId(o.invitation, "--invitation");
  const scope = invitation
    ? `the record of attempt ${invitation} of ${email}`
    : `every record of ${email} in the account`;
  await confirmOrYes(ctx, o.yes, `Mask ${scope}? This cannot be undone.`);
  const api = await ctx.api();
  const result = await api.maskCandidate({
    CandidateEmail: email!,
    ...(invitation ? { testinvitationId: invitation } : {}),
  });
  ctx.success(`${result}: masking ${scope}`);
  if (ctx.out.isJson) ctx.out.json({ result, email, testInvitationId: invitation ?? null });
  return 0;
};
export default mask;
