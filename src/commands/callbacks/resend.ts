/** `assess callbacks resend`: notifications queued again, through the bulk engine and its ledger. */
import { type BulkResult, bulkExitCode } from "../../bulk/engine/summary.js";
import { resendJob } from "../../bulk/jobs/resend.js";
import type { Context } from "../../context.js";
import { finishedAttempts } from "../../core/finished-attempts.js";
import { UsageError } from "../../errors.js";
import { MAX_CALLBACK_IDS } from "../../spec/limits.js";
import { runReported, serviceOf } from "../shared/bulk-run.js";
import { arg, flag } from "../shared/flags.js";
import { periodFlags, periodFromOptions, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { fileInput, type IdsInput, listInput } from "./ids.js";

const _NOT_IN_ACCOUNT = "not found in this account (the service answered 401 naming it)";
const _NOT_QUEUED =
  "the service could not queue its notification (is a callback URL registered, and is the attempt finished?)";

const flags = {
  file: flag.text("<ids.txt>", "ids, one per line (blank lines and # comments allowed); - reads stdin"),
  ...periodFlags(
    "resend every finished attempt of a period: its start (YYYY-MM-DD, ISO, 90d)",
    "the period's end (a bare date includes the whole day)",
  ),
  chunkSize: flag.int(
    1,
    MAX_CALLBACK_IDS,
    `ids per request (1-${MAX_CALLBACK_IDS}, default ${MAX_CALLBACK_IDS})`,
  ),
  retryUncertain: flag.bool("send again the ids of chunks whose outcome an earlier run could not learn"),
  restart: flag.bool("forget earlier runs of this input and send everything again"),
  yes: periodYes(),
};

export default verb({
  summary: "Ask the service to send the notifications of attempts again (chunks of ≤100 ids)",
  args: [arg.text("[ids...]", "testInvitationIds")],
  flags,
  examples: [
    "assess callbacks resend 100001 100002",
    "assess callbacks resend --file ids.txt --json",
    "assess callbacks resend --from 2026-10-01 --to 2026-10-31",
  ],
  run,
});
type Options = OptionsOf<typeof flags>;

/** The ids given as arguments are checked as the lines of a file are (ids.ts): every bad one listed. */
async function run(ctx: Context, o: Options, [args]: [string[]]): Promise<number> {
  const input = await idsInput(ctx, args, o);
  if (input === undefined) return 0;
  const { chunkSize, restart, retryUncertain } = o;
  return bulkExitCode(await resendIds(ctx, input, { chunkSize, restart, retryUncertain }));
}

/**
 * Resends through the bulk engine: its ledger keeps a rerun after a crash from queuing again what the service
 * confirmed; whoever resends on purpose (testing a webhook) learns why nothing went, and how to send anyway.
 */
export async function resendIds(
  ctx: Context,
  input: IdsInput,
  o: {
    chunkSize?: number;
    restart?: boolean;
    retryUncertain?: boolean;
    json?: "never";
    /** Given: an id the service could not queue (no callback URL) is handed here and not a failure. */
    notQueued?: (id: number) => void;
  },
): Promise<BulkResult> {
  const job = resendJob(await serviceOf(ctx), o.notQueued);
  const result = await runReported(
    ctx,
    {
      ...job,
      inputName: input.name,
      read: input.read,
      chunkSize: o.chunkSize ?? job.maxChunk,
      concurrency: 2,
      skipInvalid: false,
      restart: o.restart,
      retryUncertain: o.retryUncertain,
    },
    {
      verb: "Queued",
      noun: ["id", "ids"],
      target: "for re-delivery",
      inputName: input.name,
      json: o.json,
      uncertain:
        "your receiver shows which of their notifications came (`assess callbacks listen --log` keeps a log); --retry-uncertain queues them again, and a notification that was queued is then delivered twice.",
    },
  );
  const n = result.alreadyDone;
  if (n > 0 && !result.interrupted) {
    ctx.hint(
      `${n === 1 ? "1 id was" : `${n} ids were`} not resent: an earlier run already got ${n === 1 ? "its notification" : "their notifications"} queued (the ledger keeps a rerun from sending twice). Pass --restart to send ${n === 1 ? "it" : "them"} again, e.g. to test a webhook.`,
    );
  }
  return result;
}

/** Exactly one source: arguments, --file (or - for stdin), or every finished attempt of --from … --to. */
async function idsInput(ctx: Context, args: string[], o: Options): Promise<IdsInput | undefined> {
  const period = o.from !== undefined || o.to !== undefined;
  const given = [args.length > 0, o.file !== undefined, period].filter(Boolean).length;
  if (given === 0) {
    throw new UsageError(
      "Nothing to resend",
      "Give testInvitationIds as arguments, --file ids.txt, or a period with --from and --to.",
    );
  }
  if (given > 1)
    throw new UsageError("Give the ids one way: as arguments, with --file, or with --from and --to");
  if (args.length > 0) return listInput(args, "arguments");
  if (o.file !== undefined) return fileInput(o.file, ctx.io.stdin);
  const range = await periodFromOptions(ctx, o);
  ctx.planWithReads("Reading the period's finished attempts to know which notifications would be resent");
  const attempts = await finishedAttempts(ctx, (await ctx.client()).api, range);
  // Number(): the service may send its ids as numeric strings (api/schemas.ts num); the request takes numbers.
  const ids = attempts.map((attempt) => Number(attempt.testInvitationId));
  if (ids.length === 0) {
    ctx.info("No finished attempts in that period: nothing to resend.");
    return undefined;
  }
  ctx.info(`Resending the notifications of ${ids.length} finished attempt${ids.length === 1 ? "" : "s"}.`);
  return listInput(ids, "the period's attempts");
}
