import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { TEST_COLUMNS } from "./list.js";

export const options = z.object({});
export const args = z.tuple([id()]);

export async function run(ctx: Context, _o: unknown, [testId]: z.infer<typeof args>): Promise<number> {
  const client = await ctx.client();
  const test = await client.tests.get(testId);
  await ctx.out.recordWithList(
    test,
    "sections",
    [
      { key: "sectionName", header: "SECTION" },
      { key: "sectionType", header: "TYPE" },
      { key: "questions", header: "QUESTIONS" },
      { key: "duration", header: "DURATION", unit: "min" },
    ],
    [...TEST_COLUMNS, { key: "questions", header: "QUESTIONS" }],
  );
  return 0;
}
