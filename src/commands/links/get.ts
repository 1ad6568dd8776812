import type { Handler } from "../shared/kit.js";
import { parseId, resolveTestId } from "../shared/options.js";
import { showLink } from "./show.js";

const get: Handler = async (ctx, [idArg], o) => {
  const testLinkId = parseId(idArg, "testLinkId");
  const testId = await resolveTestId(ctx, o.test);
  const api = await ctx.api();
  await showLink(ctx, await api.getLink(testId, testLinkId));
  return 0;
};
export default get;
