import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { TEST_COLUMNS } from "./list.js";

export const args = z.tuple([id()]);

const SECTION_COLUMNS = [
  { key: "sectionName", header: "SECTION" },
  { key: "sectionType", header: "TYPE" },
  { key: "questions", header: "QUESTIONS" },
  { key: "duration", header: "DURATION", unit: "min" },
];

export async function run(ctx: Context, _o: unknown, [testId]: z.infer<typeof args>) {
  const test = await (await ctx.client()).tests.get(testId);
  await ctx.out.recordWithList(test, "sections", SECTION_COLUMNS, [
    ...TEST_COLUMNS,
    { key: "questions", header: "QUESTIONS" },
  ]);
  return 0;
}
