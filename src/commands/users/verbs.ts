/** The verbs of `assess users`: each names the user by `--email`, asked for when missing and prompts are on. */
import type { Command } from "commander";
import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import { parseId } from "../../parse/numbers.js";
import * as z from "../../parse/zod.js";
import { emailFlag, validEmail } from "../shared/email.js";
import { requireValues } from "../shared/options.js";

/** `--email` as emailFlag checks it (a malformed address is exit 2, nothing sent), with a hint of its own. */
const userEmail = () => emailFlag("Give the user's address, like grace@example.com.");

const createOptions = z.object({
  email: userEmail().optional(),
  name: z.string().optional(),
  businessUnit: id().optional(),
});
const updateOptions = z.object({ email: userEmail().optional(), businessUnit: id().optional() });
const statusOptions = z.object({ email: userEmail().optional() });

/** The verbs, as index.ts loads each: `import("./verbs.js").then((m) => m.create)`. */
export const create = { options: createOptions, run: createUser };
export const update = { options: updateOptions, run: moveUser };
export const status = { options: statusOptions, run: setStatus };

const USER_COLUMNS = [
  { key: "email", header: "EMAIL" },
  { key: "fullName", header: "NAME" },
  { key: "businessunitId", header: "BUSINESS UNIT" },
  { key: "status", header: "STATUS" },
];

async function createUser(ctx: Context, o: z.infer<typeof createOptions>) {
  const [email, fullName] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the new user", validate: validEmail },
    { flag: "--name", value: o.name, question: "Full name" },
  ]);
  const client = await ctx.client();
  const user = await client.users.create({
    email: email!,
    fullName: fullName!,
    ...(o.businessUnit ? { businessunitId: o.businessUnit } : {}),
  });
  if (ctx.unreadAnswer(user)) return 0;
  ctx.success(`Created user ${user.email ?? email}; they will receive an e-mail to set a password`);
  await ctx.out.record(user, USER_COLUMNS);
  return 0;
}

async function moveUser(ctx: Context, o: z.infer<typeof updateOptions>) {
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
  await ctx.out.record(user, moved);
  return 0;
}

/** `users activate` and `users deactivate`, told apart by the command's name. */
async function setStatus(ctx: Context, o: z.infer<typeof statusOptions>, _args: unknown, command: Command) {
  const status = command.name() === "activate" ? "Active" : "Inactive";
  const [email] = await requireValues(ctx, [
    { flag: "--email", value: o.email, question: "E-mail of the user", validate: validEmail },
  ]);
  const client = await ctx.client();
  const user = await client.users.setStatus({ email: email!, status });
  if (ctx.unreadAnswer(user)) return 0;
  ctx.success(`${email} is now ${user.status ?? status}`);
  await ctx.out.record(user, USER_COLUMNS);
  return 0;
}
