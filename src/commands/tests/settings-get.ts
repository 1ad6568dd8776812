import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { readableSettings } from "./settings-file.js";

export const args = z.tuple([id()]);

/** --json: the settings as the service sent them; a table: the flat fields we send, the flags as yes/no. */
export async function run(ctx: Context, _o: unknown, [testId]: z.infer<typeof args>) {
  const client = await ctx.client();
  const settings = await client.tests.settings.get(testId);
  await ctx.out.record(ctx.out.isJson ? settings : readableSettings(settings));
  return 0;
}
