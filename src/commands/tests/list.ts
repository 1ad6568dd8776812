import type { Context } from "../../context.js";
import type { Column } from "../../output/output.js";
import * as z from "../../parse/zod.js";
import { listPages, pageOptions } from "../shared/pages.js";

export const TEST_COLUMNS: Column[] = [
  { key: "testId", header: "ID" },
  { key: "testName", header: "NAME" },
  { key: "status", header: "STATUS" },
  { key: "duration", header: "DURATION", unit: "min" },
  { key: "labels", header: "LABELS" },
];

export const options = z.object({ ...pageOptions });

export async function run(ctx: Context, o: z.infer<typeof options>) {
  const fetchPage = async (page: number, size: number) =>
    (await ctx.client()).tests.list({ page, pageSize: size });
  const { pages, limit } = listPages(ctx, o, fetchPage, "tests");
  if ((await ctx.out.list(pages, TEST_COLUMNS, limit)) === 0) ctx.info("No tests found.");
  return 0;
}
