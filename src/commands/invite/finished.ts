/**
 * What `invite bulk` shows of candidates who already finished the test (core/finished.ts looks them up,
 * --lookback): the plan (--plan), a run's held rows, and their new attempts (--reattempt-finished).
 */
import type * as s from "../../api/schemas.js";
import { entryOf, type Service } from "../../bulk/jobs/index.js";
import { reattemptJob } from "../../bulk/jobs/reattempt.js";
import { type InvitePlanRow, planByClass } from "../../bulk/plan/invites.js";
import type { Context } from "../../context.js";
import type { FinishedAttempt } from "../../core/finished.js";
import { UsageError } from "../../errors.js";
import { SHOWN_ROWS } from "../../output/format.js";
import type { Column } from "../../output/output.js";
import { formatCount } from "../../output/progress.js";
import { parsed } from "../../parse/flags.js";
import { type CommandJob, runReported } from "../shared/bulk-run.js";

/** Ten years: 122 reads of the attempt listing. */
const MAX_LOOKBACK_DAYS = 3650;

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
  for (const row of rows.filter((r) => r.class === "invalid").slice(0, SHOWN_ROWS))
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
  for (const { attempt } of held.slice(0, SHOWN_ROWS))
    ctx.info(`  ${attempt.email}  invitation ${attempt.testInvitationId} (test ${attempt.testId})`);
  if (n > SHOWN_ROWS) ctx.info(`  … and ${formatCount(n - SHOWN_ROWS)} more (see --json)`);
}

/** A new attempt for each held candidate (bulk/jobs/reattempt.ts), counted in `invite bulk`'s one summary. */
export async function reattemptHeld(
  ctx: Context,
  service: Service,
  held: HeldRow[],
  body: s.ReattemptBody,
  run: Pick<CommandJob<unknown>, "inputName" | "locate" | "concurrency" | "retryUncertain">,
) {
  const job = reattemptJob(
    service,
    body,
    held.map(({ attempt }) => attempt),
  );
  const entries = held.map(({ line, attempt }) =>
    entryOf(job.prepare(attempt), line - 1, attempt.email, String(attempt.testId)),
  );
  const result = await runReported<s.ReattemptBody>(
    ctx,
    {
      ...job,
      ...run,
      read: () => [entries],
      chunkSize: job.maxChunk,
      concurrency: Math.min(run.concurrency, 4),
      skipInvalid: true,
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
  const attempts = job.answers.map(([attempt, answer]) => ({
    email: attempt.email,
    testId: attempt.testId,
    previous: attempt.testInvitationId,
    testInvitationId: answer.testInvitationId,
    testUrl: answer.testUrl,
  }));
  return { result, attempts };
}
