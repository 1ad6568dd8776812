import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { showReport } from "../shared/report.js";

export const options = z.object({ type: z.enum(["1", "2", "3"]).optional() });
export const args = z.tuple([id()]);

export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [testInvitationId]: z.infer<typeof args>,
): Promise<number> {
  const client = await ctx.client();
  const report = await client.reports.get(testInvitationId, {
    reportType: o.type ? (Number(o.type) as 1 | 2 | 3) : undefined,
  });
  await showReport(ctx, report);
  return 0;
}
