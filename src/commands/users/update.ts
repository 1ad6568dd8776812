import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import { parseId } from "../../parse/numbers.js";
import * as z from "../../parse/zod.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS } from "./columns.js";
import { emailProblem, userEmail } from "./email.js";

export const options = z.object({ email: userEmail().optional(), businessUnit: id().optional() });

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const [email, unit] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the user", validate: emailProblem },
    { flag: "--business-unit", value: o.businessUnit, question: "New business unit id" },
  ]);
  // A prompted answer is read as the flag would have been.
  const businessunitId = o.businessUnit ?? parseId(unit, "--business-unit");
  const client = await ctx.client();
  // The service spells this body with capitals: Email, BusinessunitId.
  const user = await client.users.update({ Email: email!, BusinessunitId: businessunitId });
  ctx.success(`Moved ${email} to business unit ${businessunitId}`);
  await ctx.out.record(
    user,
    USER_COLUMNS.slice(0, 3).filter((c) => c.key !== "fullName"),
  );
  return 0;
}
