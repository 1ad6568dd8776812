import type { Handler } from "../shared/kit.js";
import { parseId, requireValues } from "../shared/options.js";
import { USER_COLUMNS } from "./columns.js";
import { checkEmail, emailProblem } from "./email.js";

const create: Handler = async (ctx, _args, o) => {
  const [email, fullName] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the new user", validate: emailProblem },
    { flag: "--name", value: o.name, question: "Full name" },
  ]);
  checkEmail(email!);
  const businessunitId =
    o.businessUnit === undefined ? undefined : parseId(o.businessUnit, "--business-unit");
  const api = await ctx.api();
  const user = await api.createUser({
    email: email!,
    fullName: fullName!,
    ...(businessunitId ? { businessunitId } : {}),
  });
  ctx.success(`Created user ${user.email ?? email}; they will receive an e-mail to set a password`);
  await ctx.out.record(user, USER_COLUMNS);
  return 0;
};
export default create;
