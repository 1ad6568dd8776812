import type { Context } from "../../context.js";
import type { Column } from "../../output/output.js";
import { listPages, pageFlags } from "../shared/pages.js";
import { type OptionsOf, verb } from "../shared/verb.js";

export const TEST_COLUMNS: Column[] = [
  { key: "testId", header: "ID" },
  { key: "testName", header: "NAME" },
  { key: "status", header: "STATUS" },
  { key: "duration", header: "DURATION", unit: "min" },
  { key: "labels", header: "LABELS" },
];

const flags = pageFlags("tests");

export default verb({
  summary: "List the account's tests",
  flags,
  examples: ["assess tests list", "assess tests list --all -o ndjson | jq .testId"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
  const fetchPage = async (page: number, size: number) =>
    (await ctx.client()).tests.list({ page, pageSize: size });
  const { pages, limit } = listPages(ctx, o, fetchPage, "tests");
  if ((await ctx.out.list(pages, TEST_COLUMNS, limit)) === 0) ctx.info("No tests found.");
  return 0;
}
