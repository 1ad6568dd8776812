import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";
import { flatSettings } from "./settings-set.js";

/** `--json` prints the settings as the service sent them; a table shows API.md's flat fields, one per row. */
const settingsGet: Handler = async (ctx, [testId]) => {
  const api = await ctx.api();
  const settings = await api.getSettings(parseId(testId, "testId"));
  await ctx.out.record(ctx.out.isJson ? settings : flatSettings(settings));
  return 0;
};
export default settingsGet;
