import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import { parseId } from "../../parse/numbers.js";
import * as z from "../../parse/zod.js";
import { validEmail } from "../invite/shared.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS, userEmail } from "./shared.js";

export const options = z.object({ email: userEmail().optional(), businessUnit: id().optional() });

export async function run(ctx: Context, o: z.infer<typeof options>) {
  const [email, unit] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the user", validate: validEmail },
    { flag: "--business-unit", value: o.businessUnit, question: "New business unit id" },
  ]);
  // A prompted answer is read as the flag would have been.
  const businessunitId = o.businessUnit ?? parseId(unit, "--business-unit");
  const client = await ctx.client();
  // The service spells this body with capitals: Email, BusinessunitId.
  const user = await client.users.update({ Email: email!, BusinessunitId: businessunitId });
  ctx.success(`Moved ${email} to business unit ${businessunitId}`);
  const moved = USER_COLUMNS.filter((c) => c.key === "email" || c.key === "businessunitId");
  await ctx.out.record(user, moved);
  return 0;
}
