import type { Context } from "../../context.js";
import { resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { linkArg, ofTest, showLink } from "./show.js";

const flags = ofTest();

export default verb({
  summary: "Show one link with its URL and schedule",
  args: [linkArg()],
  flags,
  examples: ["assess links get 3001 --test 1001", "assess links get 3001 --test 1001 --json"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [testLinkId]: [number]) {
  const testId = await resolveTestId(ctx, o.test);
  const client = await ctx.client();
  await showLink(ctx, await client.testLinks.get(testId, testLinkId));
  return 0;
}
