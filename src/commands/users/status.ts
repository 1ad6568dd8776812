import type { Command } from "commander";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
import { validEmail } from "../invite/shared.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS, userEmail } from "./shared.js";

export const options = z.object({ email: userEmail().optional() });

/** `users activate` and `users deactivate`, told apart by the command's name. */
export async function run(ctx: Context, o: z.infer<typeof options>, _args: unknown, command: Command) {
  const status = command.name() === "activate" ? "Active" : "Inactive";
  const [email] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the user", validate: validEmail },
  ]);
  const client = await ctx.client();
  const user = await client.users.setStatus({ email: email!, status });
  ctx.success(`${email} is now ${user.status ?? status}`);
  await ctx.out.record(user, USER_COLUMNS);
  return 0;
}
