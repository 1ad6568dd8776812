import type { Context } from "../../context.js";
import { attemptsOfPeriod, requireTests } from "../../core/finished-attempts.js";
import { choice, id, int } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { ATTEMPT_STATES } from "../../spec/limits.js";
import { periodFromOptions, periodOptions } from "../shared/period.js";

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
  const tests = [...new Set(o.test ?? [])];
  const client = await ctx.client();
  await requireTests(client.api, tests);
  const progress = ctx.progress("windows");
  // With --limit, one window at a time: reading stops with the window that brings the N-th attempt.
  const concurrency = o.limit !== undefined ? 1 : undefined;
  const pages = attemptsOfPeriod(ctx, client.api, period, { state: o.state, progress, tests, concurrency });
  const count = await ctx.out.list(pages, ATTEMPT_COLUMNS, o.limit).finally(() => progress.done());
  if (count === 0) ctx.info(`No attempts in that period${tests.length > 0 ? " for those tests" : ""}.`);
  return 0;
}
