import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { validEmail } from "../invite/shared.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS, userEmail } from "./shared.js";

export const options = z.object({
  email: userEmail().optional(),
  name: z.string().optional(),
  businessUnit: id().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>) {
  const [email, fullName] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the new user", validate: validEmail },
    { flag: "--name", value: o.name, question: "Full name" },
  ]);
  const businessunitId = o.businessUnit;
  const client = await ctx.client();
  const user = await client.users.create({
    email: email!,
    fullName: fullName!,
    ...(businessunitId ? { businessunitId } : {}),
  });
  ctx.success(`Created user ${user.email ?? email}; they will receive an e-mail to set a password`);
  await ctx.out.record(user, USER_COLUMNS);
  return 0;
}
