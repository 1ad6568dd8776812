import type { Context } from "../../context.js";
import type { Row } from "../../output/output.js";
import { listPages, pageFlags } from "../shared/pages.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { EMPLOYEE_COLUMNS, skillsOf, TOP_SKILLS_COLUMN } from "./records.js";

const flags = pageFlags("employees");

export default verb({
  summary: "List employees with their job and department",
  flags,
  examples: [
    "assess employees list",
    "assess employees list --all -o ndjson | jq -r .email",
    "assess employees list --limit 5 --fields employeeId,email",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
  const fetchPage = async (page: number, size: number) =>
    (await ctx.client()).employees.list({ page, pageSize: size });
  const { pages, limit } = listPages(ctx, o, fetchPage, "employees");
  // The list shows top skills only when the service includes skills in it (the sandbox's does not).
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  const columns =
    first.done || !first.value.some((row) => skillsOf(row).length > 0)
      ? EMPLOYEE_COLUMNS
      : [...EMPLOYEE_COLUMNS, TOP_SKILLS_COLUMN];
  // Every page again, the first one included, without fetching it twice.
  async function* all(): AsyncIterable<Row[]> {
    if (first.done) return;
    yield first.value;
    yield* { [Symbol.asyncIterator]: () => iterator };
  }
  const count = await ctx.out.list(all(), columns, limit);
  if (count === 0) ctx.info("No employees found. Add some with `assess employees upsert employees.csv`.");
  return 0;
}
