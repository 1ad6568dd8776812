import type { Context } from "../../context.js";
import { everyField } from "../../output/output.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { INVITATION_COLUMNS } from "./invitation.js";

export default verb({
  summary: "Cancel a pending invitation",
  args: [arg.id("<testInvitationId>", "the invitation's id")],
  examples: ["assess invite cancel 100303"],
  run,
});

async function run(ctx: Context, _o: unknown, [testInvitationId]: [number]) {
  const client = await ctx.client();
  const answer = await client.invitations.cancel(testInvitationId);
  ctx.success(`Invitation ${testInvitationId} cancelled`);
  const cancelled = { testInvitationId, status: "cancelled", ...answer };
  await ctx.out.record(cancelled, everyField(cancelled, INVITATION_COLUMNS));
  return 0;
}
