/**
 * What `invite bulk` does about candidates who already finished the test: looks them up (--lookback), prints
 * the plan (--plan), names a run's held rows, and gives them a new attempt (--reattempt-finished) exactly once.
 */
import { toJson } from "../../api/json.js";
import type * as s from "../../api/schemas.js";
import type { BulkEntry } from "../../bulk/engine/types.js";
import {
  type FinishedAttempt,
  type FinishedIndex,
  finishedKey,
  type InvitePlanRow,
  indexFinished,
  planByClass,
  reattemptKey,
} from "../../bulk/plan/invites.js";
import type { Context } from "../../context.js";
import { ApiError, AuthError, CliError, UsageError } from "../../errors.js";
import type { Column } from "../../output/output.js";
import { formatCount } from "../../output/progress.js";
import { parsed } from "../../parse/flags.js";
import type { Client } from "../../sdk/client.js";
import { SHOWN } from "../shared/bulk-report.js";
import { type CommandJob, runReported } from "../shared/bulk-run.js";

/** Ten years: 122 reads of the attempt listing. */
const MAX_LOOKBACK_DAYS = 3650;
const DAY_MS = 86_400_000;

/** `--lookback 90` or `--lookback 90d`: days back from now; 0 looks nobody up. */
export const lookbackDays = () =>
  parsed((text) => {
    const match = /^\s*(\d+)\s*d?\s*$/i.exec(text);
    const days = match ? Number(match[1]) : Number.NaN;
    if (!(days >= 0 && days <= MAX_LOOKBACK_DAYS)) {
      throw new UsageError(
        `--lookback must be a number of days from 0 to ${MAX_LOOKBACK_DAYS} (like 180 or 180d; 0 skips the look-up), got "${text}"`,
      );
    }
    return days;
  });

/** What the look-up found, and why it stopped short when it did (what it read before is in `index`). */
export interface FinishedLookUp {
  index: FinishedIndex;
  failed?: string;
  /** Which tests it looked at, for messages: `test 1001` or `the file's tests`. */
  which: string;
}

/**
 * The finished attempts of the last `days` of the tests named (all when undefined). A listing the service
 * refuses or answers unreadably (but a 401) part-way: when the run depends on the look-up (`required`: a plan,
 * a run giving finished candidates a new attempt) an error, exit 1, before anything is sent; otherwise a
 * warning, and the run goes on with what was read (it then says how many rows it could not check).
 */
export async function lookUpFinished(
  ctx: Context,
  client: Client,
  days: number,
  testIds: ReadonlySet<number> | undefined,
  required: boolean,
): Promise<FinishedLookUp> {
  const which = testIds?.size === 1 ? `test ${[...testIds][0]}` : "the file's tests";
  const index: FinishedIndex = new Map();
  if (days === 0) return { index, which };
  const end = new Date(Math.floor(Date.now() / 1000) * 1000);
  const start = new Date(end.getTime() - days * DAY_MS);
  ctx.planWithReads("Reading the attempt listing to know who already finished");
  ctx.info(
    `Looking up who finished ${which} in the last ${days} days (the attempt listing, one read per 30 days${ctx.dryRun ? "; reads only" : ""})`,
  );
  const { attemptWindows } = await import("../../core/finished-attempts.js");
  const refusedIds = { count: 0 };
  const warnRefused = () => {
    if (refusedIds.count > 0)
      ctx.warn(
        `${formatCount(refusedIds.count)} finished attempt${refusedIds.count === 1 ? "" : "s"} of the listing had a testId or testInvitationId that is no id (a positive whole number): left out`,
      );
  };
  try {
    await indexFinished(
      attemptWindows(client.api, { start, end }, { signal: ctx.signal }),
      testIds,
      index,
      refusedIds,
    );
    warnRefused();
    return { index, which };
  } catch (error) {
    const refused =
      (error instanceof ApiError && error.status !== 401) ||
      (error instanceof AuthError && error.status === 403);
    if (!refused) throw error;
    warnRefused();
    const hint =
      "--lookback 0 skips the look-up; `assess attempts list --from 30d --to now` shows what the listing answers.";
    if (required) {
      throw new CliError(`could not look up who finished ${which}: ${error.message}; nothing was sent`, {
        suggestion: hint,
        cause: error,
      });
    }
    ctx.warn(
      `could not look up who finished ${which} (${error.message}): candidates who finished are not all told apart on this run`,
    );
    ctx.hint(hint);
    return { index, which, failed: error.message };
  }
}

const PLAN_COLUMNS: Column[] = ["line", "email", "testId", "class", "detail"].map((key) => ({
  key,
  header: key === "testId" ? "TEST" : key.toUpperCase(),
  prose: key === "detail",
}));

const CLASS_WORDS: Record<InvitePlanRow["class"], string> = {
  new: "to invite",
  ledger: "already sent from here",
  uncertain: "sent by an earlier run whose answer never came",
  finished: "already finished",
  invalid: "invalid",
  repeat: "repeated",
};

/** The plan: each row and its class on stdout (or by class with --json), the counts on stderr. */
export async function printInvitePlan(ctx: Context, rows: InvitePlanRow[], where: (line: number) => string) {
  const plan = planByClass(rows);
  if (ctx.out.isJson) ctx.out.json(plan);
  else {
    const shown = rows.map((row) => ({
      line: row.line,
      email: row.email,
      testId: Number.isNaN(row.testId) ? "" : row.testId,
      class: row.class,
      detail: detail(row),
    }));
    await ctx.out.list(shown, PLAN_COLUMNS);
  }
  const counts = plan.counts as Record<InvitePlanRow["class"], number>;
  const parts = (Object.keys(CLASS_WORDS) as InvitePlanRow["class"][])
    .filter((c) => counts[c] > 0 || c === "new")
    .map((c) => `${formatCount(counts[c])} ${CLASS_WORDS[c]}`);
  ctx.info(
    `Plan for ${formatCount(rows.length)} row${rows.length === 1 ? "" : "s"}: ${parts.join(", ")}; nothing was sent`,
  );
  for (const row of rows.filter((r) => r.class === "invalid").slice(0, SHOWN))
    ctx.warn(`${where(row.line)}: ${row.reason}`);
  if (counts.finished > 0)
    ctx.hint(
      "a run skips the finished candidates; --reattempt-finished gives each of them a new attempt instead.",
    );
}

function detail(row: InvitePlanRow): string {
  const f = row.finished;
  if (!f) return row.reason ?? "";
  // A span as tables show one ("start → end"): never cut, and no "…" that a cut cell's would double.
  const between = `${f.finishedBetween.from} → ${f.finishedBetween.to}`;
  const text = `invitation ${f.testInvitationId}${f.status ? ` ${f.status}` : ""}, finished ${between}`;
  return row.reason ? `${row.reason}: ${text}` : text;
}

/** A finished row a run held back. */
export interface HeldRow {
  line: number;
  attempt: FinishedAttempt;
}

/** The summary's `heldRows` reason. */
export function heldReason(attempt: FinishedAttempt): string {
  const { from, to } = attempt.finishedBetween;
  return `finished test ${attempt.testId} (invitation ${attempt.testInvitationId}, between ${from} and ${to}): not invited again`;
}

/** After a run that skipped finished candidates: say who, and how to give them a new attempt. */
export function tellHeld(ctx: Context, held: HeldRow[], testId: number | undefined): void {
  if (held.length === 0) return;
  const n = held.length;
  const test = testId !== undefined ? `test ${testId}` : "their tests";
  ctx.warn(
    `${formatCount(n)} candidate${n === 1 ? "" : "s"} already finished ${test}: not invited again; \`--reattempt-finished\` gives them a new attempt`,
  );
  for (const { attempt } of held.slice(0, SHOWN))
    ctx.info(`  ${attempt.email}  invitation ${attempt.testInvitationId} (test ${attempt.testId})`);
  if (n > SHOWN) ctx.info(`  … and ${formatCount(n - SHOWN)} more (see --json)`);
}

/**
 * One reattempt request per held candidate, through the bulk engine with a ledger of its own (per test, keyed
 * by the candidate: `reattemptKey`): a rerun never gives one a second new attempt, whatever attempts they
 * finished since, and a lost answer is uncertain, not resent.
 */
export async function reattemptHeld(
  ctx: Context,
  client: Client,
  held: HeldRow[],
  body: s.ReattemptBody,
  run: Pick<CommandJob<unknown>, "inputName" | "locate" | "target" | "concurrency" | "retryUncertain">,
) {
  const json = toJson<s.ReattemptBody>(body);
  const byRow = new Map(held.map(({ attempt }) => [finishedKey(attempt.testId, attempt.email), attempt]));
  const entries: BulkEntry<s.ReattemptBody>[] = held.map(({ line, attempt }) => ({
    row: {
      line,
      group: String(attempt.testId),
      key: reattemptKey(attempt.email),
      label: attempt.email,
      json,
    },
  }));
  const answers: Array<[FinishedAttempt, Record<string, unknown>]> = [];
  const result = await runReported<s.ReattemptBody>(
    ctx,
    {
      kind: "reattempt",
      ...run,
      read: () => [entries],
      chunkSize: 1,
      maxChunk: 1,
      concurrency: Math.min(run.concurrency, 4),
      skipInvalid: true,
      send: async (group, rows) => {
        for (const row of rows) {
          const attempt = byRow.get(finishedKey(group, row.label))!;
          answers.push([attempt, await client.invitations.reattempt(attempt.testInvitationId, body)]);
        }
        return undefined;
      },
    },
    {
      verb: "Gave a new attempt to",
      noun: ["finished candidate", "finished candidates"],
      uncertain:
        "ask these candidates whether a new attempt's e-mail came, or look in the service's web console; --retry-uncertain asks for a new attempt again, and one who got it may then get a second.",
      inputName: run.inputName,
      locate: run.locate,
      json: "never",
      // Counted in invite bulk's one summary.
      deferred: true,
    },
  );
  const attempts = answers.map(([attempt, answer]) => ({
    email: attempt.email,
    testId: attempt.testId,
    previous: attempt.testInvitationId,
    testInvitationId: answer.testInvitationId,
    testUrl: answer.testUrl,
  }));
  return { result, attempts };
}
