import type { Context } from "../../context.js";
import { id as idFlag } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";

export const args = z.tuple([idFlag()]);

export async function run(ctx: Context, _o: unknown, [id]: z.infer<typeof args>): Promise<number> {
  const client = await ctx.client();
  const answer = await client.invitations.cancel(id);
  ctx.success(`Invitation ${id} cancelled`);
  await ctx.out.record({ testInvitationId: id, status: "cancelled", ...answer });
  return 0;
}
