import type { Handler } from "../shared/kit.js";
import { listPages } from "../shared/pages.js";

export const TEST_COLUMNS = [
  { key: "testId", header: "ID" },
  { key: "testName", header: "NAME" },
  { key: "status", header: "STATUS" },
  { key: "duration", header: "DURATION" },
  { key: "labels", header: "LABELS" },
];

const list: Handler = async (ctx, _args, options) => {
  const { pages, limit } = listPages(
    ctx,
    options,
    async (page, size) => (await ctx.api()).listTests(page, size),
    "tests",
  );
  const count = await ctx.out.list(pages, TEST_COLUMNS, limit);
  if (count === 0) ctx.info("No tests found.");
  return 0;
};
export default list;
