import type { Context } from "../../context.js";
import { flag } from "../shared/flags.js";
import { resolveTestId } from "../shared/options.js";
import { showReport } from "../shared/report.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { employeeArg } from "./body.js";

const flags = {
  test: flag.id("the test (picked from a list when missing and prompts are allowed)", "<testId>"),
};

export default verb({
  summary: "Show the most recent completed assessment report of an employee for a test",
  args: [employeeArg()],
  flags,
  examples: ["assess employees report 501 --test 1001", "assess employees report 501 --test 1001 --json"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [employeeId]: [number]) {
  const testId = await resolveTestId(ctx, o.test);
  const client = await ctx.client();
  await showReport(ctx, await client.employees.report(employeeId, testId));
  return 0;
}
