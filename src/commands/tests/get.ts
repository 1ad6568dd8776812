import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const get: Handler = async (ctx, [testId]) => {
  const api = await ctx.api();
  const test = await api.getTest(parseId(testId, "testId"));
  await ctx.out.recordWithList(test, "sections", [
    { key: "sectionName", header: "SECTION" },
    { key: "sectionType", header: "TYPE" },
    { key: "questions", header: "QUESTIONS" },
    { key: "duration", header: "DURATION" },
  ]);
  return 0;
};
export default get;
