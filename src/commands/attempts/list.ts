import { createProgress } from "../../output/progress.js";
import type { Handler } from "../shared/kit.js";
import { optionalInt } from "../shared/options.js";
import { attemptsOfPeriod, periodFromOptions } from "./period.js";

export const ATTEMPT_COLUMNS = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testId", header: "TEST" },
  { key: "name", header: "NAME" },
  { key: "email", header: "EMAIL" },
  { key: "teststatus", header: "STATUS" },
  { key: "invitationtype", header: "TYPE" },
  { key: "extEmployeeId", header: "EMPLOYEE" },
];

const list: Handler = async (ctx, _args, options) => {
  const period = await periodFromOptions(ctx, options);
  const limit = optionalInt(options.limit, "--limit");
  const state = String(options.state ?? "completed");
  const api = await ctx.api();
  const progress = createProgress(ctx.io.stderr, ctx.io.env, "windows");
  const pages = attemptsOfPeriod(ctx, api, period, state, (done, total) => progress.update({ done, total }));
  let count: number;
  try {
    count = await ctx.out.list(pages, ATTEMPT_COLUMNS, limit);
  } finally {
    progress.done();
  }
  if (count === 0) ctx.info("No attempts in that period.");
  return 0;
};
export default list;
