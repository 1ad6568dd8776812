import type { Context } from "../../context.js";
import { choice, id, int } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { ATTEMPT_STATES } from "../../spec/limits.js";
import { attemptTestId } from "../reports/period-reports.js";
import { attemptsOfPeriod, periodFromOptions, periodOptions } from "./period.js";

export const ATTEMPT_COLUMNS = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testId", header: "TEST" },
  { key: "name", header: "NAME" },
  { key: "email", header: "EMAIL" },
  { key: "teststatus", header: "STATUS" },
  { key: "invitationtype", header: "TYPE" },
  { key: "extEmployeeId", header: "EMPLOYEE" },
];

export const options = z.object({
  ...periodOptions,
  test: z.array(id()).optional(),
  state: choice(ATTEMPT_STATES),
  limit: int(1).optional(),
  all: z.boolean().optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const period = await periodFromOptions(ctx, o);
  const testIds = new Set(o.test ?? []);
  const client = await ctx.client();
  // Another account's test is refused here (403, exit 4) rather than silently listing nothing.
  for (const testId of testIds) await client.tests.get(testId);
  const progress = ctx.progress("windows");
  const listed = attemptsOfPeriod(ctx, client, period, { state: o.state, progress });
  // The listing takes no test: the service lists every test's attempts, kept here to those asked for.
  const pages =
    testIds.size === 0
      ? listed
      : (async function* () {
          for await (const page of listed) {
            const kept = page.filter((attempt) => testIds.has(attemptTestId(attempt) ?? Number.NaN));
            if (kept.length > 0) yield kept;
          }
        })();
  const count = await ctx.out.list(pages, ATTEMPT_COLUMNS, o.limit).finally(() => progress.done());
  if (count === 0) ctx.info(`No attempts in that period${testIds.size > 0 ? " for those tests" : ""}.`);
  return 0;
}
