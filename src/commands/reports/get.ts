import type { Context } from "../../context.js";
import { arg, flag } from "../shared/flags.js";
import { showReport } from "../shared/report.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  type: flag.choice(["1", "2", "3"], "1 = by section, 2 = by skill, 3 = both", { value: "<n>" }),
};

export default verb({
  summary: "Show the report of one attempt",
  args: [arg.id("<testInvitationId>", "the attempt's id")],
  flags,
  examples: ["assess reports get 100001", "assess reports get 100001 --type 3 --json"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [testInvitationId]: [number]): Promise<number> {
  const client = await ctx.client();
  const report = await client.reports.get(testInvitationId, {
    reportType: o.type ? (Number(o.type) as 1 | 2 | 3) : undefined,
  });
  await showReport(ctx, report);
  return 0;
}
