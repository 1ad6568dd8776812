import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { resolveTestId } from "../shared/options.js";
import { showReport } from "../shared/report.js";

export const options = z.object({ test: id().optional() });
export const args = z.tuple([id()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [employeeId]: z.infer<typeof args>) {
  const testId = await resolveTestId(ctx, o.test);
  const client = await ctx.client();
  await showReport(ctx, await client.employees.report(employeeId, testId));
  return 0;
}
