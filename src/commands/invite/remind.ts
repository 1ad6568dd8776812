/**
 * `invite remind`: re-invites, with the e-mail sent and a new window, every candidate of a test invited from here
 * (the invitation book) who has not finished and was last sent an invitation more than --older-than ago. A plan
 * first; then --yes or a terminal's confirmation; each reminder once, through the bulk engine's ledger.
 */
import { bulkExitCode } from "../../bulk/engine/summary.js";
import { entriesOf } from "../../bulk/jobs/index.js";
import { remindJob } from "../../bulk/jobs/remind.js";
import type { Context } from "../../context.js";
import { InvitationBook } from "../../core/invitation-book.js";
import { invitationStatus, planReminders, reminderRow } from "../../core/invitation-status.js";
import { UsageError } from "../../errors.js";
import type { Column } from "../../output/output.js";
import { formatCount } from "../../output/progress.js";
import { formatDuration, parseDuration } from "../../parse/dates.js";
import { runReported, serviceOf } from "../shared/bulk-run.js";
import { flag } from "../shared/flags.js";
import { confirmOrYes, resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { serviceWindow } from "./invitation.js";

const DEFAULT_EXTEND = "5d";

const flags = {
  test: flag.id("the test whose candidates to remind (asked for when missing and prompts are allowed)"),
  olderThan: flag
    .duration("remind only candidates invited or last reminded longer ago than this (2d, 36h)", { min: 0 })
    .default("2d"),
  extend: flag.duration(
    `the new window ends this long after the later of now and the current end (default ${DEFAULT_EXTEND})`,
    { min: 60_000 },
  ),
  end: flag.date("end", "the new window's end for everyone instead (YYYY-MM-DD, ISO, +7d)"),
  max: flag.int(1, undefined, "remind at most this many (those sent longest ago first)"),
  plan: flag.bool("print who would be reminded, and their new window end; send nothing"),
  yes: flag.bool("send without asking (needed without a terminal)").short("-y"),
  retryUncertain: flag.bool(
    "remind again candidates whose reminder went out but whose answer never came (they may get a second e-mail)",
  ),
};

export default verb({
  summary: "Re-invite, with the e-mail, candidates of a test invited from here who have not finished",
  flags,
  notes: `The service has no reminder: re-inviting a pending or expired invitation resets it to Pending with the new window and e-mails the candidate again. Who: the candidates of the invitation book (\`assess invite status\`) not finished (the attempt listing), invited or last reminded more than --older-than ago, those sent longest ago first (--max). A plan comes first (who, and their new window end); then --yes, or a terminal's confirmation (exit 2 without either). Each reminder is sent once, through the bulk runs' ledger: a rerun within --older-than sends nothing, and a reminder whose answer was lost is not sent again unless --retry-uncertain. The invitation's callback and redirect URLs, time zone and proctoring mode, as sent from here, are sent again.`,
  examples: [
    "assess invite remind --test 1001 --plan",
    "assess invite remind --test 1001 --older-than 3d --extend 5d --yes",
    "assess invite remind --test 1001 --end +14d --max 50 --yes --json",
  ],
  run,
});

const PLAN_COLUMNS: Column[] = [
  { key: "email", header: "EMAIL" },
  { key: "name", header: "NAME" },
  { key: "state", header: "STATE" },
  { key: "testInvitationId", header: "INVITATION" },
  { key: "lastSentAt", header: "LAST SENT" },
  { key: "end", header: "WINDOW END" },
  { key: "newEnd", header: "NEW END" },
];

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  if (o.extend !== undefined && o.end !== undefined)
    throw new UsageError("--extend and --end both set the new window's end: give one");
  serviceWindow({ end: o.end });
  const testId = await resolveTestId(ctx, o.test);
  const book = InvitationBook.at(ctx.connection.bookPlace());
  const client = await ctx.client();
  ctx.planWithReads("Reading the attempt listing to know who finished");
  const status = await invitationStatus(ctx, client.api, book, { tests: [testId] });
  const plan = planReminders(status, {
    testId,
    olderThanMs: o.olderThan,
    end: o.end,
    extendMs: o.extend ?? parseDuration(DEFAULT_EXTEND, "--extend"),
    max: o.max,
  });
  const rows = plan.remind.map(reminderRow);
  const counts = {
    remind: rows.length,
    pending: rows.filter((r) => r.state !== "expired").length,
    expired: rows.filter((r) => r.state === "expired").length,
    finished: plan.finished,
    recent: plan.recent,
    overMax: plan.overMax,
  };
  const planJson = { testId, counts, remind: rows };
  const previewing = o.plan === true;
  if (previewing || !ctx.out.isJson) {
    if (ctx.out.isJson) ctx.out.json(planJson);
    else if (rows.length > 0) await ctx.out.list(rows, PLAN_COLUMNS);
  }
  const parts = [
    `${formatCount(counts.remind)} to remind (${formatCount(counts.pending)} pending, ${formatCount(counts.expired)} expired)`,
    `${formatCount(counts.finished)} finished`,
    `${formatCount(counts.recent)} sent within ${formatDuration(o.olderThan)}`,
    counts.overMax > 0 ? `${formatCount(counts.overMax)} over --max` : undefined,
  ];
  ctx.info(`Plan for test ${testId}: ${parts.filter(Boolean).join(", ")}`);
  if (previewing) {
    ctx.info("Nothing was sent (--plan)");
    return 0;
  }
  if (rows.length === 0) {
    if (ctx.out.isJson) ctx.out.json({ ...planJson, result: null });
    ctx.success("Nobody to remind: nothing was sent");
    return 0;
  }
  const n = rows.length;
  await confirmOrYes(
    ctx,
    o.yes,
    `Re-invite ${formatCount(n)} candidate${n === 1 ? "" : "s"} of test ${testId}, e-mailing each?`,
  );
  const job = remindJob(await serviceOf(ctx));
  const entries = entriesOf(job, plan.remind, String(testId), (r) => r.candidate.email);
  const result = await runReported(
    ctx,
    {
      ...job,
      read: () => [entries],
      chunkSize: 1,
      concurrency: 2,
      skipInvalid: true,
      retryUncertain: o.retryUncertain === true,
    },
    {
      verb: "Reminded",
      noun: ["candidate", "candidates"],
      target: `of test ${testId}`,
      json: "never",
      uncertain:
        "ask these candidates whether the reminder's e-mail came, or look in the service's web console; --retry-uncertain reminds them again, and one whose e-mail did arrive then gets a second.",
    },
  );
  if (ctx.out.isJson) ctx.out.json({ ...planJson, result });
  return bulkExitCode(result);
}
