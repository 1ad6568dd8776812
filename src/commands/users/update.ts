import { parseId } from "../../parse/numbers.js";
import { validEmail } from "../shared/email.js";
import { withSent } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import { requireValues } from "../shared/options.js";
import { verb } from "../shared/verb.js";
import { USER_COLUMNS, userEmail } from "./columns.js";

export default verb({
  summary: "Move a user to another business unit",
  flags: { email: userEmail(), businessUnit: flag.id("the new business unit id") },
  examples: ["assess users update --email grace@example.com --business-unit 11"],
  async run(ctx, o) {
    const [email, unit] = await requireValues(ctx, [
      { flag: "--email", value: o.email, question: "E-mail of the user", validate: validEmail },
      { flag: "--business-unit", value: o.businessUnit, question: "New business unit id" },
    ]);
    // A prompted answer is read as the flag would have been.
    const businessunitId = o.businessUnit ?? parseId(unit, "--business-unit");
    const client = await ctx.client();
    // The service spells this body with capitals: Email, BusinessunitId.
    const user = await client.users.update({ Email: email!, BusinessunitId: businessunitId });
    if (ctx.unreadAnswer(user)) return 0;
    ctx.success(`Moved ${email} to business unit ${businessunitId}`);
    const moved = USER_COLUMNS.filter((c) => c.key === "email" || c.key === "businessunitId");
    await ctx.out.record(withSent(ctx.out, user, { email, businessunitId }), moved);
    return 0;
  },
});
