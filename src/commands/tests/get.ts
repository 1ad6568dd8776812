import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const get: Handler = async (ctx, [testId]) => {
  const api = await ctx.api();
  const test = await api.getTest(parseId(testId, "testId"));
  if (ctx.out.format === "table" && !ctx.flags.fields) {
    const { sections, ...summary } = test;
    await ctx.out.record(summary);
    if (Array.isArray(sections) && sections.length > 0) {
      await ctx.out.list(sections as Record<string, unknown>[], [
        { key: "sectionName", header: "SECTION" },
        { key: "sectionType", header: "TYPE" },
        { key: "questions", header: "QUESTIONS" },
        { key: "duration", header: "DURATION" },
      ]);
    }
    return 0;
  }
  await ctx.out.record(test);
  return 0;
};
export default get;
