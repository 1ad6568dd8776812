import type { Context } from "../../context.js";
import { attemptsOfPeriod, requireTests } from "../../core/finished-attempts.js";
import { id } from "../../parse/flags.js";
import { ATTEMPT_STATES } from "../../spec/limits.js";
import { flag } from "../shared/flags.js";
import { periodFlags, periodFromOptions, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";

export const ATTEMPT_COLUMNS = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testId", header: "TEST" },
  { key: "name", header: "NAME" },
  { key: "email", header: "EMAIL" },
  { key: "teststatus", header: "STATUS" },
  { key: "invitationtype", header: "TYPE" },
  { key: "extEmployeeId", header: "EMPLOYEE" },
];

const flags = {
  ...periodFlags(
    "start of the period: YYYY-MM-DD, ISO time with offset, 90d (90 days ago), now",
    "end of the period (a bare date includes the whole day)",
  ),
  test: flag.list("<id>", "only these tests' attempts (repeatable, or comma-separated)", id()),
  state: flag
    .choice(
      ATTEMPT_STATES,
      "attempt state the service filters on (the service documents only completed: finished, left or terminated)",
      { value: "<state>" },
    )
    .default("completed"),
  limit: flag.int(1, undefined, "stop after this many attempts"),
  all: flag.bool("every attempt of the period (the default: every ≤30-day window is listed)"),
  yes: periodYes(),
};

export default verb({
  summary: "List the attempts of a period of any length (split into ≤30-day calls, deduplicated)",
  flags,
  examples: [
    "assess attempts list --from 2026-01-01 --to 2026-03-31",
    "assess attempts list --from 90d --to now --test 1001,1002",
    "assess attempts list --from 90d --to now --all -o ndjson | jq .testInvitationId",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
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
