/**
 * `invite status`: who was invited from here (the invitation book) and who has finished (the attempt listing),
 * per test; `--candidates` a row per candidate; `--log` adds who started (a listener's In Progress notifications).
 */
import type { Context } from "../../context.js";
import { BOOK_MAX_RECORDS, BOOK_RETENTION_DAYS, InvitationBook } from "../../core/invitation-book.js";
import { type CandidateStatus, invitationStatus, startedFromLog } from "../../core/invitation-status.js";
import type { Column } from "../../output/output.js";
import { formatCount } from "../../output/progress.js";
import { id } from "../../parse/flags.js";
import { flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  test: flag.list(
    "<id>",
    "only this test (repeatable, or comma-separated)",
    id(),
    "give at least one test id",
  ),
  from: flag.date("start", "only candidates first invited at or after this (YYYY-MM-DD, ISO, 30d)"),
  candidates: flag.bool(
    "a row per candidate (state, invitation, window end, last reminder) instead of per test",
  ),
  log: flag.text(
    "<listen.ndjson>",
    "the file `callbacks listen --log` appends to: candidates whose In Progress notification it holds are counted as started",
  ),
};

export default verb({
  summary: "Who was invited from here and has not finished: per test invited, finished, pending, expired",
  flags,
  notes: `The service lists only finished attempts, so only what this machine sent can say who has not finished: every invitation sent from here (invite send, link, bulk, reattempts, reminders, rules; the SDK's and \`assess mcp\`'s too) is recorded in the invitation book, per profile and service, in the config folder (invitations/, private). A candidate is finished when the attempt listing (Complete, Testleft, Terminated) holds their invitation since they were first invited from here, started when --log holds its In Progress notification, pending while their window is open (or has no end known), expired once it has passed. The book forgets a candidate ${BOOK_RETENTION_DAYS} days after their window ends (30 days after they were invited when no end was sent) and keeps at most ${formatCount(BOOK_MAX_RECORDS)} records (those invited longest ago go first).
--json always gives everything: {"tests": [...], "candidates": [...]}; -o ndjson a line per test, or per candidate with --candidates.`,
  examples: [
    "assess invite status",
    "assess invite status --test 1001 --candidates",
    "assess invite status --test 1001 --from 30d --json",
    "assess invite status --log callbacks.ndjson --candidates",
  ],
  run,
});

const TEST_COLUMNS: Column[] = [
  { key: "testId", header: "TEST" },
  { key: "invited", header: "INVITED" },
  { key: "finished", header: "FINISHED" },
  { key: "started", header: "STARTED" },
  { key: "pending", header: "PENDING" },
  { key: "expired", header: "EXPIRED" },
];

const CANDIDATE_COLUMNS: Column[] = [
  { key: "testId", header: "TEST" },
  { key: "email", header: "EMAIL" },
  { key: "name", header: "NAME" },
  { key: "state", header: "STATE" },
  { key: "testInvitationId", header: "INVITATION" },
  { key: "end", header: "WINDOW END" },
  { key: "invitedAt", header: "INVITED" },
  { key: "lastReminderAt", header: "LAST REMINDER" },
];

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  // The log is read first: a bad one is an error before any call.
  const started = o.log === undefined ? undefined : await startedFromLog(o.log);
  const book = InvitationBook.at(ctx.connection.bookPlace());
  const client = await ctx.client();
  ctx.planWithReads("Reading the attempt listing to know who finished");
  const status = await invitationStatus(ctx, client.api, book, { tests: o.test, from: o.from, started });
  if (ctx.out.format === "json") {
    ctx.out.json({ tests: status.tests, candidates: status.candidates.map(shown) });
  } else if (o.candidates) {
    await ctx.out.list(status.candidates.map(shown), CANDIDATE_COLUMNS);
  } else {
    await ctx.out.list(
      status.tests.map((counts): Record<string, unknown> => ({ ...counts })),
      started ? TEST_COLUMNS : TEST_COLUMNS.filter((c) => c.key !== "started"),
    );
  }
  if (status.candidates.length === 0)
    ctx.info(
      `No invitation sent from here${o.test ? ` to test ${o.test.join(", ")}` : ""}${o.from ? " since then" : ""} is in the invitation book (${book.path}).`,
    );
  return 0;
}

/** A candidate as shown: without the settings a reminder sends again. */
function shown({ keep: _keep, ...candidate }: CandidateStatus) {
  return candidate;
}
