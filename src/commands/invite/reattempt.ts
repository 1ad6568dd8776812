import type { Context } from "../../context.js";
import { everyField } from "../../output/output.js";
import { dropUndefined } from "../shared/fields.js";
import { arg } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { aroundFlags, INVITATION_COLUMNS, serviceWindow, windowFlags } from "./invitation.js";

const flags = {
  ...windowFlags("when the new attempt opens", "when the new attempt closes"),
  ...aroundFlags(),
};

export default verb({
  summary: "Let a candidate take a test again",
  args: [arg.id("<testInvitationId>", "the finished attempt's id")],
  flags,
  examples: ["assess invite reattempt 100003 --end +3d"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [previous]: [number]) {
  const { start, end } = serviceWindow(o);
  const client = await ctx.client();
  // The service spells these fields with capitals, unlike the invite body.
  const answer = await client.invitations.reattempt(
    previous,
    dropUndefined({
      StartDateTime: start,
      EndDateTime: end,
      TimeZoneId: o.timezone,
      CallbackUrl: o.callbackUrl,
      RedirectUrl: o.redirectUrl,
      hideInstruction: o.hideInstruction ? (1 as const) : undefined,
    }),
  );
  // The id may come as a numeric string ("50123"): the same attempt's, not a new one.
  const newId = answer.testInvitationId;
  ctx.success(
    newId && Number(newId) !== previous
      ? `Reattempt allowed: new invitation ${String(newId)}`
      : `Reattempt allowed for invitation ${previous}`,
  );
  await ctx.out.record(answer, everyField(answer, INVITATION_COLUMNS));
  return 0;
}
