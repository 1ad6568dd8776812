import type { Context } from "../../../context.js";
import { arg } from "../../shared/flags.js";
import { verb } from "../../shared/verb.js";
import { readableSettings } from "./file.js";

export default verb({
  summary: "Show a test's settings",
  args: [arg.id("<testId>", "the test's id")],
  examples: ["assess tests settings get 1001"],
  run,
});

/** --json: the settings as the service sent them; a table: the flat fields we send, the flags as yes/no. */
async function run(ctx: Context, _o: unknown, [testId]: [number]) {
  const client = await ctx.client();
  const settings = await client.tests.settings.get(testId);
  await ctx.out.record(ctx.out.isJson ? settings : readableSettings(settings));
  return 0;
}
