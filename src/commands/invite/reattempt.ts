import type { Context } from "../../context.js";
import { id as idFlag } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { dropUndefined } from "../shared/fields.js";
import { serviceWindow, windowOptions } from "./shared.js";

export const options = z.object({
  ...windowOptions,
  callbackUrl: z.string().optional(),
  redirectUrl: z.string().optional(),
  hideInstruction: z.boolean().optional(),
});
export const args = z.tuple([idFlag()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [id]: z.infer<typeof args>) {
  const { start, end } = serviceWindow(o);
  const client = await ctx.client();
  // The service spells these fields with capitals, unlike the invite body.
  const answer = await client.invitations.reattempt(
    id,
    dropUndefined({
      StartDateTime: start,
      EndDateTime: end,
      TimeZoneId: o.timezone,
      CallbackUrl: o.callbackUrl,
      RedirectUrl: o.redirectUrl,
      hideInstruction: o.hideInstruction ? (1 as const) : undefined,
    }),
  );
  const newId = answer.testInvitationId;
  ctx.success(
    newId && newId !== id
      ? `Reattempt allowed: new invitation ${String(newId)}`
      : `Reattempt allowed for invitation ${id}`,
  );
  await ctx.out.record(answer);
  return 0;
}
