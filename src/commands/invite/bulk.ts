import type { BulkCandidate, BulkInviteSettings } from "../../api/schemas.js";
import { append } from "../../arrays.js";
import { ledgerDir } from "../../bulk/engine/ledger.js";
import { bulkExitCode } from "../../bulk/engine/summary.js";
import type { BulkEntry } from "../../bulk/engine/types.js";
import { inviteJob } from "../../bulk/jobs/invite.js";
import { planInvites, readLedger } from "../../bulk/plan/invites.js";
import { csvRows } from "../../bulk/rows/csv-rows.js";
import { inviteColumns } from "../../bulk/rows/invites.js";
import type { InputFile } from "../../bulk/rows/open.js";
import type { Context } from "../../context.js";
import { type FinishedLookUp, finishedKey, LOOK_UP_HINT, lookUpFinished } from "../../core/finished.js";
import { UsageError } from "../../errors.js";
import { formatCount } from "../../output/progress.js";
import { MAX_BULK_CANDIDATES } from "../../spec/limits.js";
import { bulkFileFlags, bulkFlags, openBulkFile, withInputFile } from "../shared/bulk-file.js";
import { jsonSummary, printBulkResult, type Wording } from "../shared/bulk-report.js";
import { runReported, serviceOf } from "../shared/bulk-run.js";
import { dropUndefined } from "../shared/fields.js";
import { arg, flag } from "../shared/flags.js";
import { resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import {
  type HeldRow,
  heldReason,
  lookbackDays,
  printInvitePlan,
  reattemptHeld,
  tellHeld,
} from "./finished.js";
import { proctoringFlag, serviceWindow, windowFlags } from "./invitation.js";

const flags = {
  test: flag.id("the test to invite to (or a testid column in the file)"),
  ...windowFlags("when the invitations open", "when the invitations close"),
  proctoring: proctoringFlag(),
  ...bulkFileFlags("candidates", MAX_BULK_CANDIDATES, 4),
  emailColumn: flag.text("<name>", "the column holding e-mails"),
  nameColumn: flag.text("<name>", "the column holding names"),
  plan: flag.bool(
    "print each row's class (new, already sent from here, finished, invalid, repeat) and send nothing",
  ),
  lookback: flag
    .of(
      "<days>",
      "how far back to look for candidates who already finished the test (the attempt listing; 0: don't look). If the listing fails, --plan and --reattempt-finished stop (exit 1, nothing sent); a plain run warns how many rows it could not check",
      lookbackDays(),
    )
    .default("180"),
  reattemptFinished: flag.bool(
    "give candidates who already finished a new attempt (the reattempt operation, once per candidate and test, whatever they finish later) instead of skipping them",
  ),
};

type Options = OptionsOf<typeof flags>;

export default verb({
  summary: "Invite every candidate of a CSV file or .xlsx sheet (validated, resumable; never invites twice)",
  args: [
    arg.text(
      "<file>",
      "CSV, or an .xlsx workbook, with a header row: email and name columns (see `assess help formatting`); - reads CSV from standard input",
    ),
  ],
  flags,
  examples: [
    "assess invite bulk candidates.csv --test 1001 --plan          # who is new, invited before, finished",
    "assess invite bulk candidates.csv --test 1001 --plan --json   # the rows by class",
    "assess invite bulk fixtures/candidates.csv --test 1001",
    "assess invite bulk candidates.csv --test 1001 --reattempt-finished --end +7d",
    "assess invite bulk candidates.xlsx --sheet Candidates --test 1001   # rejects go to candidates.rejects.csv",
    "assess invite bulk candidates.csv --test 1001 --end +14d --skip-invalid --json",
    "cut -d, -f1,2 export.csv | assess invite bulk - --test 1001",
  ],
  run,
});

/**
 * Once this many rows are checked, all valid, the look-up of who finished starts, to run while the rest is
 * checked: a smaller file is checked in milliseconds, and a file refused before then costs no read.
 */
const OVERLAP_FROM = 10_000;

/** What a person can do about invitations of unknown outcome: the service has no operation that lists them. */
const UNCERTAIN_INVITES =
  "no operation of the service lists invitations: ask these candidates whether the invitation e-mail came, or look in the service's web console. --retry-uncertain invites them again, and a candidate whose invitation did arrive then gets a second e-mail.";

async function run(ctx: Context, o: Options, [file]: [string]): Promise<number> {
  const { start, end } = serviceWindow(o);
  const settings: BulkInviteSettings = dropUndefined({
    startDateTime: start,
    endDateTime: end,
    timezoneId: o.timezone,
    proctoringMode: o.proctoring,
  });
  return withInputFile(ctx, file, (source) => invite(ctx, o, settings, source));
}

async function invite(ctx: Context, o: Options, settings: BulkInviteSettings, source: InputFile) {
  const file = await openBulkFile(ctx, source, o, "email,name");
  const { input } = file;
  const columns = inviteColumns(input, { emailColumn: o.emailColumn, nameColumn: o.nameColumn });
  if (columns.test !== undefined && o.test !== undefined) {
    throw new UsageError(
      `--test cannot be combined with the file's "${input.header[columns.test]}" column, which names each row's test`,
      "Drop --test to use the column, or remove the column to invite everyone to --test.",
    );
  }
  const testId = columns.test === undefined ? await resolveTestId(ctx, o.test) : undefined;

  if (o.plan && o.reattemptFinished)
    throw new UsageError("--plan sends nothing: drop --reattempt-finished, or --plan to run");
  const service = await serviceOf(ctx);
  const job = inviteJob(service, settings);
  // What the invites' run and the reattempts' run both take: how to name rows, and rerun what.
  const common = {
    inputName: file.inputName,
    locate: file.locate,
    retryUncertain: o.retryUncertain === true,
  };
  // Who already finished (core/finished.ts). A plan, and a run giving finished candidates a new attempt, depend
  // on it: a failed look-up stops them before anything is sent.
  const reattempt = o.reattemptFinished === true;
  const lookUp = async (stop?: AbortSignal) => {
    const signal = stop ? AbortSignal.any([ctx.signal, stop]) : ctx.signal;
    async function* windows(span: { start: Date; end: Date }) {
      const { attemptWindows } = await import("../../core/finished-attempts.js");
      yield* attemptWindows(service.api, span, { signal });
    }
    const found = await lookUpFinished(ctx, windows, {
      days: o.lookback,
      testIds: testId !== undefined ? new Set([testId]) : undefined,
      required: o.plan === true || reattempt,
      starting: (which) => {
        ctx.planWithReads("Reading the attempt listing to know who already finished");
        ctx.info(
          `Looking up who finished ${which} in the last ${o.lookback} days (the attempt listing, one read per 30 days${ctx.dryRun ? "; reads only" : ""})`,
        );
      },
    });
    if (found.failed !== undefined) ctx.hint(LOOK_UP_HINT);
    return found;
  };
  const rows = csvRows(input, { rows: "invites", columns, testId });
  if (o.plan) {
    const entries: BulkEntry<BulkCandidate>[] = [];
    for await (const batch of rows.read()) append(entries, batch);
    if (entries.length === 0) throw new UsageError(file.noRows);
    const { index: finished } = await lookUp();
    const dir = ledgerDir(ctx.io.env);
    const planned = await planInvites([entries], {
      finished,
      invited: (testId) => readLedger(dir, "invite", job.target(String(testId))),
      reattempted: (testId) => readLedger(dir, "reattempt", job.target(String(testId))),
    });
    await printInvitePlan(ctx, planned, common.locate);
    return 0;
  }
  let finished: FinishedLookUp | undefined;
  const held: HeldRow[] = [];
  // Rows the run could not check against who finished, when the look-up failed part-way.
  let unchecked = 0;
  const wording: Wording = {
    verb: "Invited",
    noun: ["candidate", "candidates"],
    target: testId !== undefined ? `to test ${testId}` : "to their tests",
    inputName: common.inputName,
    locate: common.locate,
    rejectsNamed: file.rejectsNamed,
    groupLabel: columns.test !== undefined ? "test" : undefined,
    held: "already finished",
    uncertain: UNCERTAIN_INVITES,
  };
  const invited = await runReported<BulkCandidate>(
    ctx,
    {
      ...job,
      ...common,
      noRowsMessage: file.noRows,
      ...rows,
      ...bulkFlags(o, job.maxChunk),
      rejects: file.rejects,
      // Nothing is sent before the look-up has answered: a plain run holds back whom it found.
      overlapFrom: OVERLAP_FROM,
      beforeSend: async (stop) => {
        finished = await lookUp(stop);
      },
      hold: (group, label, line) => {
        // Nobody found, and nothing left unchecked: no row's key to make (100,000 e-mails cost ~60 ms).
        if (finished?.index.size === 0 && finished.failed === undefined) return undefined;
        const attempt = finished?.index.get(finishedKey(group, label));
        if (!attempt) {
          if (finished?.failed !== undefined) unchecked++;
          return undefined;
        }
        held.push({ line, attempt });
        return heldReason(attempt);
      },
    },
    // With --reattempt-finished, one summary of both runs comes after the reattempts.
    reattempt ? { ...wording, json: "never", deferred: true } : wording,
  );
  if (!reattempt) {
    tellHeld(ctx, held, testId);
    if (unchecked > 0 && finished)
      ctx.warn(
        `could not check whether ${formatCount(unchecked)} of the rows already finished ${finished.which} (the look-up failed): they were handled as not finished`,
      );
    return bulkExitCode(invited);
  }
  const { result, attempts } =
    held.length > 0
      ? await reattemptHeld(
          ctx,
          service,
          held,
          dropUndefined({
            StartDateTime: settings.startDateTime,
            EndDateTime: settings.endDateTime,
            TimeZoneId: settings.timezoneId,
          }),
          { ...common, concurrency: o.concurrency },
        )
      : { result: undefined, attempts: [] };
  const codes = [bulkExitCode(invited), result ? bulkExitCode(result) : 0];
  const code = codes.includes(130) ? 130 : Math.max(...codes);
  // One summary of the file: the finished rows counted by what their reattempt became.
  printBulkResult(ctx, invited, {
    ...wording,
    json: "never",
    ...(result && {
      also: {
        result,
        sent: "given a new attempt",
        done: "given a new attempt before",
        verb: "Gave a new attempt to",
        noun: ["finished candidate", "finished candidates"] as [string, string],
      },
    }),
  });
  if (jsonSummary(ctx, code === 3))
    ctx.out.json({ ...invited, reattempt: result ? { ...result, attempts } : null });
  else if (attempts.length > 0)
    await ctx.out.list(attempts, [
      { key: "email", header: "EMAIL" },
      { key: "testId", header: "TEST" },
      { key: "previous", header: "FINISHED" },
      { key: "testInvitationId", header: "NEW INVITATION" },
      { key: "testUrl", header: "URL" },
    ]);
  return code;
}
