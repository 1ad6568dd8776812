import type { Handler } from "../shared/kit.js";
import { optionalInt, resolveTestId } from "../shared/options.js";
import { LIST_COLUMNS } from "./show.js";

const list: Handler = async (ctx, _args, o) => {
  const limit = optionalInt(o.limit, "--limit");
  const testId = await resolveTestId(ctx, o.test);
  const api = await ctx.api();
  const links = await api.listLinks(testId);
  const count = await ctx.out.list(links, LIST_COLUMNS, limit);
  if (count === 0)
    ctx.info(`Test ${testId} has no links yet; create one with \`assess links create --test ${testId}\`.`);
  return 0;
};
export default list;
