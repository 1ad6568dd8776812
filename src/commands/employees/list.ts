import type { Context } from "../../context.js";
import type { Row } from "../../output/output.js";
import * as z from "../../parse/zod.js";
import { listPages, pageOptions } from "../shared/pages.js";
import { EMPLOYEE_COLUMNS, skillsOf, TOP_SKILLS_COLUMN } from "./records.js";

export const options = z.object({ ...pageOptions });

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const { pages, limit } = listPages(
    ctx,
    o,
    async (page, size) => (await ctx.client()).employees.list({ page, pageSize: size }),
    "employees",
  );
  // The list shows top skills only when the service includes skills in it (the sandbox's does not).
  const { first, rest } = await peek(pages);
  const columns = first?.some((row) => skillsOf(row).length > 0)
    ? [...EMPLOYEE_COLUMNS, TOP_SKILLS_COLUMN]
    : EMPLOYEE_COLUMNS;
  const count = await ctx.out.list(rest, columns, limit);
  if (count === 0) ctx.info("No employees found. Add some with `assess employees upsert employees.csv`.");
  return 0;
}

/** The first page, and all pages again (the first one included) without fetching it twice. */
async function peek(
  pages: AsyncIterable<Row[]>,
): Promise<{ first: Row[] | undefined; rest: AsyncIterable<Row[]> }> {
  const iterator = pages[Symbol.asyncIterator]();
  const head = await iterator.next();
  const rest = (async function* () {
    if (head.done) return;
    yield head.value;
    yield* { [Symbol.asyncIterator]: () => iterator };
  })();
  return { first: head.done ? undefined : head.value, rest };
}
