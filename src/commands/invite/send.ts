import type { InviteBody } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { dropUndefined } from "../shared/fields.js";
import { requireValues, resolveTestId } from "../shared/options.js";
import {
  candidateFields,
  candidateOptions,
  candidateValues,
  serviceWindow,
  showInvitation,
  windowOptions,
} from "./shared.js";

export const options = z.object({
  test: id().optional(),
  ...candidateOptions,
  ...windowOptions,
  proctoring: z.enum(["disabled", "image", "video"]).optional(),
  stakeholders: z.string().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const testId = await resolveTestId(ctx, o.test);
  const [email, name] = await requireValues(ctx, o.anonymous ? [] : candidateValues(o));
  const { start, end } = serviceWindow(o);
  const body = dropUndefined<InviteBody>({
    ...candidateFields(o, email, name),
    sendEmail: o.sendEmail ? "yes" : undefined,
    stakeholderEmails: o.stakeholders,
    startDateTime: start,
    endDateTime: end,
    timeZoneId: o.timezone,
    ProctoringMode: o.proctoring,
  });
  const client = await ctx.client();
  await showInvitation(ctx, await client.invitations.create(testId, body), email, `to test ${testId}`);
  return 0;
}
