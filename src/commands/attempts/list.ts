import type { Context } from "../../context.js";
import { int } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { periodFromOptions, periodOptions } from "./period.js";

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
  state: z.string(),
  limit: int(1).optional(),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const period = await periodFromOptions(ctx, o);
  const { limit, state } = o;
  const client = await ctx.client();
  const progress = ctx.progress("windows");
  const pages = client.attempts.pages({
    from: period.start,
    to: period.end,
    state,
    signal: ctx.signal,
    onWindow: (done, total) => progress.update({ done, total }),
  });
  let count: number;
  try {
    count = await ctx.out.list(pages, ATTEMPT_COLUMNS, limit);
  } finally {
    progress.done();
  }
  if (count === 0) ctx.info("No attempts in that period.");
  return 0;
}
