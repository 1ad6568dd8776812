import type { Context } from "../../context.js";
import { id, int } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { resolveTestId } from "../shared/options.js";
import { LIST_COLUMNS } from "./show.js";

export const options = z.object({
  test: id().optional(),
  limit: int(1).optional(),
  all: z.boolean().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const testId = await resolveTestId(ctx, o.test);
  const client = await ctx.client();
  const links = await client.testLinks.list(testId);
  const count = await ctx.out.list(links, LIST_COLUMNS, o.limit);
  if (count === 0)
    ctx.info(`Test ${testId} has no links yet; create one with \`assess links create --test ${testId}\`.`);
  return 0;
}
