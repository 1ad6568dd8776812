import { UsageError } from "../../errors.js";
import { parseDate, refusePastEnd, toServiceTime } from "../../parse/dates.js";
import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";
import { dropUndefined } from "./shared.js";

const reattempt: Handler = async (ctx, [idArg], o) => {
  const id = parseId(idArg, "testInvitationId");
  const start = o.start === undefined ? undefined : parseDate(String(o.start), "start", "--start");
  const end = o.end === undefined ? undefined : parseDate(String(o.end), "end", "--end");
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
  const api = await ctx.api();
  // §2.5 spells these fields with capitals, unlike the invite body.
  const answer = await api.reattempt(
    id,
    dropUndefined({
      StartDateTime: start && toServiceTime(start),
      EndDateTime: end && toServiceTime(end),
      TimeZoneId: o.timezone === undefined ? undefined : parseId(o.timezone, "--timezone"),
      CallbackUrl: o.callbackUrl as string | undefined,
      RedirectUrl: o.redirectUrl as string | undefined,
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
};
export default reattempt;
