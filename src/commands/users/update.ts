import type { Handler } from "../shared/kit.js";
import { parseId, requireValues } from "../shared/options.js";
import { USER_COLUMNS } from "./columns.js";
import { checkEmail, emailProblem } from "./email.js";

const update: Handler = async (ctx, _args, o) => {
  const [email, unit] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the user", validate: emailProblem },
    { flag: "--business-unit", value: o.businessUnit, question: "New business unit id" },
  ]);
  checkEmail(email!);
  const businessunitId = parseId(unit, "--business-unit");
  const api = await ctx.api();
  // §4.1 spells this body with capitals: Email, BusinessunitId.
  const user = await api.updateUser({ Email: email!, BusinessunitId: businessunitId });
  ctx.success(`Moved ${email} to business unit ${unit}`);
  await ctx.out.record(
    user,
    USER_COLUMNS.slice(0, 3).filter((c) => c.key !== "fullName"),
  );
  return 0;
};
export default update;
