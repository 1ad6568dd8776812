import type { Context } from "../../context.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { TEST_COLUMNS } from "./list.js";

export default verb({
  summary: "Show one test with its sections",
  args: [arg.id("<testId>", "the test's id")],
  examples: ["assess tests get 1001", "assess tests get 1001 --json"],
  run,
});

const SECTION_COLUMNS = [
  { key: "sectionName", header: "SECTION" },
  { key: "sectionType", header: "TYPE" },
  { key: "questions", header: "QUESTIONS" },
  { key: "duration", header: "DURATION", unit: "min" },
];

async function run(ctx: Context, _o: unknown, [testId]: [number]) {
  const test = await (await ctx.client()).tests.get(testId);
  await ctx.out.recordWithList(test, "sections", SECTION_COLUMNS, [
    ...TEST_COLUMNS,
    { key: "questions", header: "QUESTIONS" },
  ]);
  return 0;
}
