/** `users activate` and `users deactivate`: one operation, the status each sets. */
import type { Context } from "../../context.js";
import { validEmail } from "../shared/email.js";
import { withSent } from "../shared/fields.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS } from "./columns.js";

export async function setUserStatus(ctx: Context, given: string | undefined, status: "Active" | "Inactive") {
  const [email] = await requireValues(ctx, [
    { flag: "--email", value: given, question: "E-mail of the user", validate: validEmail },
  ]);
  const client = await ctx.client();
  const user = await client.users.setStatus({ email: email!, status });
  if (ctx.unreadAnswer(user)) return 0;
  ctx.success(`${email} is now ${user.status ?? status}`);
  await ctx.out.record(withSent(ctx.out, user, { email, status }), USER_COLUMNS);
  return 0;
}
