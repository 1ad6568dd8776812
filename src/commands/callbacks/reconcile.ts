import { bulkExitCode } from "../../bulk/engine/summary.js";
import type { Context } from "../../context.js";
import { finishedAttempts, requireTests } from "../../core/finished-attempts.js";
import { LOG_FILE, loggedNotifications } from "../../core/listener-log.js";
import { ExitCode, UsageError } from "../../errors.js";
import { jsonText } from "../../escape.js";
import { field, positiveId } from "../../fields.js";
import { serviceId } from "../../identity.js";
import { SHOWN_ROWS } from "../../output/format.js";
import { formatCount } from "../../output/progress.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { flag } from "../shared/flags.js";
import { periodFlags, periodFromOptions, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { listInput } from "./ids.js";
import { resendIds } from "./resend.js";

const flags = {
  ...periodFlags(
    "start of the period: YYYY-MM-DD, ISO time, 7d (7 days ago)",
    "end of the period (default: now; a bare date includes the whole day)",
  ),
  log: flag.of(
    "<listen.ndjson>",
    "the file `callbacks listen --log` appends to (TestInvitationId in any casing)",
    z.string().min(1),
  ),
  test: flag.list(
    "<id>",
    "only these tests' attempts (repeatable, or comma-separated)",
    id(),
    "give at least one test id",
  ),
  yes: periodYes(),
};

export default verb({
  summary:
    "Resend exactly the notifications a `callbacks listen --log` file never received, for the finished attempts of a period",
  flags,
  examples: [
    "assess callbacks reconcile --from 7d --log callbacks.ndjson --dry-run",
    "assess callbacks reconcile --from 2026-10-01 --to 2026-10-31 --log callbacks.ndjson --test 1001 --json",
    "0 6 * * * assess callbacks reconcile --from 2d --log /var/log/assess/callbacks.ndjson   # cron",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const log = o.log;
  if (log === undefined) {
    throw new UsageError("Missing --log <listen.ndjson>: the notifications received", LOG_FILE);
  }
  // The log is read first: a bad one is an error before any call.
  const received = await finalNotifications(log);
  const period = await periodFromOptions(ctx, { ...o, to: o.to ?? new Date() });
  const tests = [...new Set(o.test ?? [])];
  const client = await ctx.client();
  ctx.planWithReads("Reading the period's finished attempts to know which notifications are missing");
  await requireTests(client.api, tests);
  const finished = await finishedAttempts(ctx, client.api, period, tests);
  // Each attempt once by its number (`7001` and `"7001"` are one); an id no attempt can have is named and
  // skipped: the others are still resent, and the run exits 1 at its end.
  const valid = new Set<number>();
  const invalid: string[] = [];
  for (const attempt of finished) {
    const attemptId = serviceId(attempt.testInvitationId);
    if (attemptId === undefined) invalid.push(jsonText(attempt.testInvitationId));
    else valid.add(attemptId);
  }
  if (invalid.length > 0) {
    const named = invalid.slice(0, SHOWN_ROWS).join(", ") + (invalid.length > SHOWN_ROWS ? ", …" : "");
    ctx.warn(
      `The service listed ${formatCount(invalid.length)} attempt${invalid.length === 1 ? "" : "s"} whose testInvitationId is not a plain positive whole number (${named}): skipped, nothing can be resent for ${invalid.length === 1 ? "it" : "them"}.`,
    );
  }
  const attempts = [...valid];
  const missing = attempts.filter((attemptId) => !received.has(attemptId)).sort((a, b) => a - b);
  const found = attempts.length - missing.length;
  const what = o.test ? ` of test${tests.length > 1 ? "s" : ""} ${tests.join(", ")}` : "";
  ctx.info(
    `${formatCount(attempts.length)} finished attempt${attempts.length === 1 ? "" : "s"}${what} in the period; ` +
      `${formatCount(found)} with a final notification in ${log}; ${formatCount(missing.length)} missing.`,
  );
  const done = (code: number) => (invalid.length > 0 && code === ExitCode.ok ? ExitCode.failure : code);
  const report = (resent: number, alreadyQueued = 0, noCallbackUrl: number[] = []) => {
    if (ctx.out.isJson) {
      ctx.out.json({
        attempts: attempts.length,
        received: found,
        missing,
        resent,
        alreadyQueued,
        noCallbackUrl,
        invalidIds: invalid.length,
      });
    } else if (missing.length > 0) ctx.out.write(`${missing.join("\n")}\n`);
  };
  if (missing.length === 0) {
    ctx.success("Nothing to resend: every finished attempt's notification arrived");
    report(0);
    return done(ExitCode.ok);
  }
  const listed = missing.slice(0, SHOWN_ROWS).join(", ") + (missing.length > SHOWN_ROWS ? ", …" : "");
  if (ctx.dryRun) {
    ctx.info(
      `[dry-run] the attempts were listed (reads); would resend the notifications of ${formatCount(missing.length)}: ${listed}. Nothing was sent.`,
    );
    report(0);
    return done(ExitCode.ok);
  }
  ctx.info(`Resending the notifications of ${listed}`);
  // A finished attempt the service cannot queue has no callback URL (bulk invitations carry none): no resend
  // can ever help, so it is counted apart and said once, not a failure.
  const noCallbackUrl = new Set<number>();
  const result = await resendIds(ctx, listInput(missing, "the missing notifications"), {
    json: "never",
    notQueued: (attemptId) => noCallbackUrl.add(attemptId),
  });
  if (noCallbackUrl.size > 0) {
    const n = noCallbackUrl.size;
    ctx.info(
      `${formatCount(n)} of the missing attempt${n === 1 ? " has" : "s have"} no callback URL (bulk invitations carry none): the service cannot send ${n === 1 ? "its notification" : "their notifications"}; skipped.`,
    );
  }
  const skipped = [...noCallbackUrl].sort((a, b) => a - b);
  report(result.sent - result.failed - skipped.length, result.alreadyDone, skipped);
  return done(bulkExitCode(result));
}

/** The attempts whose final notification (anything but In Progress) the log holds, `TestInvitationId` in any casing. */
async function finalNotifications(file: string): Promise<Set<number>> {
  const ids = new Set<number>();
  for await (const { notification } of loggedNotifications(file)) {
    const attemptId = positiveId(field(notification, "TestInvitationId"));
    if (attemptId === undefined) continue;
    const status = field(notification, "Status");
    if (typeof status === "string" && /in\s*progress/i.test(status)) continue;
    ids.add(attemptId);
  }
  return ids;
}
