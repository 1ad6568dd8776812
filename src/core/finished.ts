/**
 * Who already finished a test: the finished look-up of `invite bulk` (its runs hold those candidates back, its
 * --plan names them, --reattempt-finished gives them a new attempt), from the attempt listing's windows.
 */
import type { TestAttempt } from "../api/schemas.js";
import { ApiError, AuthError, CliError } from "../errors.js";
import { field } from "../fields.js";
import { emailKey, serviceId } from "../identity.js";
import { formatCount } from "../output/progress.js";
import { toServiceTime } from "../parse/dates.js";
import type { Notices } from "./notices.js";

const DAY_MS = 86_400_000;

/** The attempt listing's windows over a span (`attemptWindows` of core/finished-attempts.ts). */
type Windows = AsyncIterable<{ start: Date; end: Date; attempts: TestAttempt[] }>;

/** A finished attempt as the listing gives it, with the ≤30-day window it was listed in. */
export interface FinishedAttempt {
  testInvitationId: number;
  testId: number;
  email: string;
  /** As the service names it (Complete, TestLeft, Terminated…), when it says. */
  status?: string;
  /** The listing's records carry no date: the attempt finished between these two (UTC). */
  finishedBetween: { from: string; to: string };
}

/** Finished attempts by test and e-mail (as src/identity.ts keys it): the latest of each. */
export type FinishedIndex = Map<string, FinishedAttempt>;

export function finishedKey(testId: number | string, email: string): string {
  return `${testId}\n${reattemptKey(email)}`;
}

/**
 * A reattempt's key in its test's ledger: the candidate, not the finished attempt (whose id changes with every
 * attempt): a candidate who finishes the new attempt too is not given another on the next run.
 */
export function reattemptKey(email: string): string {
  return emailKey(email) ?? email;
}

/**
 * The finished attempts of the tests named (all when `testIds` is undefined), from the attempt listing's
 * windows (`attemptWindows` of core/finished-attempts.ts: ≤30 days each, in time order, so a later attempt of a
 * candidate wins), into `index`: what was read stays there when a window fails. An attempt whose ids are not
 * plainly ids (`"007"`, `true`: src/identity.ts) is left out, counted in `refused`.
 */
async function indexFinished(
  windows: Windows,
  testIds: ReadonlySet<number> | undefined,
  index: FinishedIndex = new Map(),
  refused = { count: 0 },
): Promise<FinishedIndex> {
  for await (const { start, end, attempts } of windows) {
    const finishedBetween = { from: toServiceTime(start), to: toServiceTime(end) };
    for (const attempt of attempts) {
      const email = attempt.email;
      if (typeof email !== "string" || emailKey(email) === undefined || attempt.testId == null) continue;
      const testId = serviceId(attempt.testId);
      const testInvitationId = serviceId(attempt.testInvitationId);
      if (testId === undefined || testInvitationId === undefined) {
        refused.count++;
        continue;
      }
      if (testIds && !testIds.has(testId)) continue;
      const status = field(attempt, "testStatus");
      index.set(finishedKey(testId, email), {
        testInvitationId,
        testId,
        email,
        ...(typeof status === "string" ? { status } : {}),
        finishedBetween,
      });
    }
  }
  return index;
}

/** What the look-up found, and why it stopped short when it did (what it read before is in `index`). */
export interface FinishedLookUp {
  index: FinishedIndex;
  failed?: string;
  /** Which tests it looked at, for messages: `test 1001` or `the file's tests`. */
  which: string;
}

/** What to do when the look-up fails: the hint of its error, and of its warning. */
export const LOOK_UP_HINT =
  "--lookback 0 skips the look-up; `assess attempts list --from 30d --to now` shows what the listing answers.";

/**
 * The finished attempts of the last `days` of the tests named (all when undefined), `starting` told which
 * before the first read. A listing the service refuses or answers unreadably (but a 401) part-way: when the run
 * depends on the look-up (`required`: a plan, a run giving finished candidates a new attempt) an error, exit 1,
 * before anything is sent; otherwise a warning, and the run goes on with what was read (it then says how many
 * rows it could not check).
 */
export async function lookUpFinished(
  notices: Notices,
  windows: (span: { start: Date; end: Date }) => Windows,
  o: {
    days: number;
    testIds: ReadonlySet<number> | undefined;
    required: boolean;
    starting?: (which: string) => void;
  },
): Promise<FinishedLookUp> {
  const { days, testIds } = o;
  const which = testIds?.size === 1 ? `test ${[...testIds][0]}` : "the file's tests";
  const index: FinishedIndex = new Map();
  if (days === 0) return { index, which };
  const end = new Date(Math.floor(Date.now() / 1000) * 1000);
  const start = new Date(end.getTime() - days * DAY_MS);
  o.starting?.(which);
  const refusedIds = { count: 0 };
  const warnRefused = () => {
    if (refusedIds.count > 0)
      notices.warn(
        `${formatCount(refusedIds.count)} finished attempt${refusedIds.count === 1 ? "" : "s"} of the listing had a testId or testInvitationId that is no id (a positive whole number): left out`,
      );
  };
  try {
    await indexFinished(windows({ start, end }), testIds, index, refusedIds);
    warnRefused();
    return { index, which };
  } catch (error) {
    const refused =
      (error instanceof ApiError && error.status !== 401) ||
      (error instanceof AuthError && error.status === 403);
    if (!refused) throw error;
    warnRefused();
    if (o.required) {
      throw new CliError(`could not look up who finished ${which}: ${error.message}; nothing was sent`, {
        suggestion: LOOK_UP_HINT,
        cause: error,
      });
    }
    notices.warn(
      `could not look up who finished ${which} (${error.message}): candidates who finished are not all told apart on this run`,
    );
    return { index, which, failed: error.message };
  }
}
