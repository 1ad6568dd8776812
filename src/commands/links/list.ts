import type { Context } from "../../context.js";
import { flag } from "../shared/flags.js";
import { resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { LIST_COLUMNS } from "./show.js";

const flags = {
  test: flag.id("the test (asked for when missing and prompts are allowed)"),
  limit: flag.int(1, undefined, "show at most this many links"),
  all: flag.bool("show every link (the service answers them all at once)"),
};

export default verb({
  summary: "List a test's links",
  flags,
  examples: ["assess links list --test 1001", "assess links list --test 1001 --json | jq '.[].testLink'"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const testId = await resolveTestId(ctx, o.test);
  const client = await ctx.client();
  const links = await client.testLinks.list(testId);
  const count = await ctx.out.list(links, LIST_COLUMNS, o.limit);
  if (count === 0)
    ctx.info(`Test ${testId} has no links yet; create one with \`assess links create --test ${testId}\`.`);
  return 0;
}
