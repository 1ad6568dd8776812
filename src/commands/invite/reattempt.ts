import type { Context } from "../../context.js";
import { toServiceTime } from "../../parse/dates.js";
import { date, id as idFlag } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { checkWindow, dropUndefined } from "./shared.js";

export const options = z.object({
  start: date("start").optional(),
  end: date("end").optional(),
  timezone: idFlag().optional(),
  callbackUrl: z.string().optional(),
  redirectUrl: z.string().optional(),
  hideInstruction: z.boolean().optional(),
});
export const args = z.tuple([idFlag()]);

export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [id]: z.infer<typeof args>,
): Promise<number> {
  const { start, end } = o;
  checkWindow(start, end);
  const client = await ctx.client();
  // The service spells these fields with capitals, unlike the invite body.
  const answer = await client.invitations.reattempt(
    id,
    dropUndefined({
      StartDateTime: start && toServiceTime(start),
      EndDateTime: end && toServiceTime(end),
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
