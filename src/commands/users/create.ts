import { validEmail } from "../shared/email.js";
import { withSent } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import { requireValues } from "../shared/options.js";
import { verb } from "../shared/verb.js";
import { USER_COLUMNS, userEmail } from "./columns.js";

export default verb({
  summary: "Create a user (role Reviewer; they get an e-mail to set a password)",
  flags: {
    email: userEmail(),
    name: flag.text("<name>", "the user's full name"),
    businessUnit: flag.id("business unit id (default: the account's default unit)"),
  },
  examples: ["assess users create --email grace@example.com --name 'Grace Hopper'"],
  async run(ctx, o) {
    const [email, fullName] = await requireValues(ctx, [
      { flag: "--email", value: o.email, question: "E-mail of the new user", validate: validEmail },
      { flag: "--name", value: o.name, question: "Full name" },
    ]);
    const client = await ctx.client();
    const sent = {
      email: email!,
      fullName: fullName!,
      ...(o.businessUnit ? { businessunitId: o.businessUnit } : {}),
    };
    const user = await client.users.create(sent);
    if (ctx.unreadAnswer(user)) return 0;
    ctx.success(`Created user ${user.email ?? email}; they will receive an e-mail to set a password`);
    await ctx.out.record(withSent(ctx.out, user, sent), USER_COLUMNS);
    return 0;
  },
});
