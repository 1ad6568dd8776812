import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import { parseId } from "../../parse/numbers.js";
import * as z from "../../parse/zod.js";
import { dropUndefined } from "../shared/fields.js";
import { requireValues, resolveTestId } from "../shared/options.js";
import { candidateFields, candidateOptions, candidateValues, showInvitation } from "./shared.js";

export const options = z.object({ test: id().optional(), link: id().optional(), ...candidateOptions });

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const testId = await resolveTestId(ctx, o.test);
  const [linkId, email, name] = await requireValues(ctx, [
    { flag: "--link", value: o.link, question: "Test link id" },
    ...(o.anonymous ? [] : candidateValues(o)),
  ]);
  // A prompted answer is read as the flag would have been.
  const testLinkId = parseId(linkId, "--link");
  const client = await ctx.client();
  const invitation = await client.testLinks.invite(
    testId,
    testLinkId,
    dropUndefined({ ...candidateFields(o, email, name), sendEmail: o.sendEmail ? (1 as const) : undefined }),
  );
  await showInvitation(ctx, invitation, email, `through link ${testLinkId}`);
  return 0;
}
