import type { Handler } from "../shared/kit.js";
import { requireValues } from "../shared/options.js";
import { USER_COLUMNS } from "./columns.js";
import { checkEmail, emailProblem } from "./email.js";

export function statusHandler(status: "Active" | "Inactive"): Handler {
  return async (ctx, _args, o) => {
    const [email] = await requireValues(ctx, [
      { flag: "--email", value: o.email, question: "E-mail of the user", validate: emailProblem },
    ]);
    checkEmail(email!);
    const api = await ctx.api();
    const user = await api.setUserStatus({ email: email!, status });
    ctx.success(`${email} is now ${user.status ?? status}`);
    await ctx.out.record(user, USER_COLUMNS);
    return 0;
  };
}
