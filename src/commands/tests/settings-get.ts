import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const settingsGet: Handler = async (ctx, [testId]) => {
  const api = await ctx.api();
  await ctx.out.record(await api.getSettings(parseId(testId, "testId")));
  return 0;
};
export default settingsGet;
