import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS } from "./columns.js";
import { emailProblem, userEmail } from "./email.js";

export const options = z.object({
  email: userEmail().optional(),
  name: z.string().optional(),
  businessUnit: id().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const [email, fullName] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the new user", validate: emailProblem },
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
