/**
 * Who was invited from here and has not finished (`invite status`, `invite remind`, the SDK's
 * `client.invitations.status()`, the MCP tools): the invitation book's candidates (core/invitation-book.ts),
 * each finished when the attempt listing (Complete, Testleft, Terminated) holds their invitation, else started
 * when a `callbacks listen --log` file holds its In Progress notification, else pending while their window is
 * open and expired once it has passed.
 */
import type { Api } from "../api/endpoints.js";
import { field } from "../fields.js";
import { emailKey, serviceId } from "../identity.js";
import { finishedKey } from "./finished.js";
import { attemptWindows } from "./finished-attempts.js";
import type { BookedCandidate, InvitationBook } from "./invitation-book.js";
import { loggedNotifications } from "./listener-log.js";
import type { Notices } from "./notices.js";

export const CANDIDATE_STATES = ["finished", "started", "pending", "expired"] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];

export interface CandidateStatus extends BookedCandidate {
  state: CandidateState;
  /** The finished attempt, as the listing names its status (Complete, TestLeft, Terminated…). */
  finished?: { testInvitationId: number; status?: string };
}

export interface TestStatus {
  testId: number;
  invited: number;
  finished: number;
  /** Only with a listener's log: In Progress, not finished. */
  started: number;
  pending: number;
  expired: number;
}

export interface InvitationStatus {
  tests: TestStatus[];
  candidates: CandidateStatus[];
  /** Lines of the book that could not be read (a write a crash cut short), skipped. */
  skippedLines: number;
}

/** What `callbacks listen --log` says was started: In Progress notifications, by invitation id and e-mail. */
export interface Started {
  ids: Set<number>;
  /** E-mail (keyed) → when the notification came (ISO), for invitations whose id the book does not know. */
  emails: Map<string, string>;
}

export interface StatusOptions {
  /** Only these tests (all the book's when empty or undefined). */
  tests?: readonly number[];
  /** Only candidates first invited at or after this. */
  from?: Date;
  started?: Started;
  now?: Date;
  /** Read the book only: forget no one (the SDK's and the MCP server's reads). */
  readOnly?: boolean;
}

/** The book's candidates with their states, and per test the counts. */
export async function invitationStatus(
  notices: Pick<Notices, "signal" | "warn">,
  api: Api,
  book: InvitationBook,
  o: StatusOptions = {},
): Promise<InvitationStatus> {
  const now = o.now ?? new Date();
  const { candidates: all, skipped } = book.candidates(now, { prune: o.readOnly !== true });
  if (skipped > 0)
    notices.warn(
      `the invitation book ${book.path} has ${skipped} line${skipped === 1 ? "" : "s"} that could not be read, skipped (a write a crash cut short leaves one)`,
    );
  const tests = o.tests && o.tests.length > 0 ? new Set(o.tests) : undefined;
  const from = o.from?.getTime();
  const candidates = all.filter(
    (c) => (!tests || tests.has(c.testId)) && (from === undefined || Date.parse(c.invitedAt) >= from),
  );
  const finished = await finishedSince(notices, api, candidates, now);
  const statuses = candidates.map((candidate): CandidateStatus => {
    const attempt =
      candidate.testInvitationId !== undefined
        ? finished.byId.get(candidate.testInvitationId)
        : finished.byCandidate.get(finishedKey(candidate.testId, candidate.email));
    if (attempt) return { ...candidate, state: "finished", finished: attempt };
    return { ...candidate, state: openState(candidate, o.started, now) };
  });
  const byTest = new Map<number, TestStatus>();
  for (const testId of tests ?? []) byTest.set(testId, emptyCounts(testId));
  for (const c of statuses) {
    const counts = byTest.get(c.testId) ?? emptyCounts(c.testId);
    byTest.set(c.testId, counts);
    counts.invited++;
    counts[c.state]++;
  }
  return {
    tests: [...byTest.values()].sort((a, b) => a.testId - b.testId),
    candidates: statuses,
    skippedLines: skipped,
  };
}

function emptyCounts(testId: number): TestStatus {
  return { testId, invited: 0, finished: 0, started: 0, pending: 0, expired: 0 };
}

function openState(c: BookedCandidate, started: Started | undefined, now: Date): CandidateState {
  if (started) {
    if (c.testInvitationId !== undefined ? started.ids.has(c.testInvitationId) : false) return "started";
    const at = c.testInvitationId === undefined ? started.emails.get(c.email) : undefined;
    if (at !== undefined && at >= c.invitedAt) return "started";
  }
  const end = c.end !== undefined ? Date.parse(c.end) : Number.NaN;
  return !Number.isNaN(end) && end < now.getTime() ? "expired" : "pending";
}

type Attempt = { testInvitationId: number; status?: string };

/**
 * The attempts finished since the earliest of `candidates` was invited, by invitation id and by test and
 * e-mail (the latest): a candidate whose invitation id the book knows is matched by it (a new attempt after a
 * reattempt is not the one they finished before), one invited in bulk (no id) by test and e-mail.
 */
async function finishedSince(
  notices: Pick<Notices, "signal">,
  api: Api,
  candidates: readonly BookedCandidate[],
  now: Date,
): Promise<{ byId: Map<number, Attempt>; byCandidate: Map<string, Attempt> }> {
  const byId = new Map<number, Attempt>();
  const byCandidate = new Map<string, Attempt>();
  if (candidates.length === 0) return { byId, byCandidate };
  const tests = new Set(candidates.map((c) => c.testId));
  const first = Math.min(...candidates.map((c) => Date.parse(c.invitedAt)));
  const span = {
    start: new Date(Math.floor(first / 1000) * 1000),
    end: new Date(Math.ceil(now.getTime() / 1000) * 1000),
  };
  for await (const { attempts } of attemptWindows(api, span, { signal: notices.signal })) {
    for (const attempt of attempts) {
      const testId = serviceId(attempt.testId);
      const id = serviceId(attempt.testInvitationId);
      if (testId === undefined || id === undefined || !tests.has(testId)) continue;
      const status = field(attempt, "testStatus");
      const found = { testInvitationId: id, ...(typeof status === "string" && { status }) };
      byId.set(id, found);
      if (typeof attempt.email === "string" && emailKey(attempt.email) !== undefined)
        byCandidate.set(finishedKey(testId, attempt.email), found);
    }
  }
  return { byId, byCandidate };
}

/**
 * The In Progress notifications of a `callbacks listen --log` file (or of bare notifications, one a line).
 * Lines that are not JSON objects (a listener killed mid-write) and rejected requests are skipped.
 */
export async function startedFromLog(file: string, flag = "--log"): Promise<Started> {
  const started: Started = { ids: new Set(), emails: new Map() };
  for await (const { notification, receivedAt } of loggedNotifications(file, { flag, lenient: true })) {
    const status = field(notification, "Status");
    if (typeof status !== "string" || !/in\s*progress/i.test(status)) continue;
    const id = serviceId(field(notification, "TestInvitationId"));
    if (id !== undefined) started.ids.add(id);
    const email = emailKey(field(notification, "CandidateEmailId"));
    if (email !== undefined) started.emails.set(email, receivedAt ?? "");
  }
  return started;
}

/** One candidate to remind: who, their state, and the window's new end. */
export interface Reminder {
  candidate: CandidateStatus;
  newEnd: string;
}

export interface RemindOptions {
  testId: number;
  /** Sent (invited or reminded) at least this long ago. */
  olderThanMs: number;
  /** The window's new end: a date, or this long after the later of now and its current end. */
  end?: Date;
  extendMs: number;
  max?: number;
  now?: Date;
  /** What "now" is for the new end (default `now`): the MCP tool's hour, so that a plan and its run agree. */
  endFrom?: Date;
}

/** Who `invite remind` re-invites, oldest sent first: not finished, sent more than `olderThanMs` ago. */
export function planReminders(
  status: InvitationStatus,
  o: RemindOptions,
): { remind: Reminder[]; finished: number; recent: number; overMax: number } {
  const now = (o.now ?? new Date()).getTime();
  const ofTest = status.candidates.filter((c) => c.testId === o.testId);
  const open = ofTest.filter((c) => c.state !== "finished");
  const due = open
    .filter((c) => Date.parse(c.lastSentAt) <= now - o.olderThanMs)
    .sort((a, b) => a.lastSentAt.localeCompare(b.lastSentAt));
  const chosen = o.max !== undefined ? due.slice(0, o.max) : due;
  const from = o.endFrom?.getTime() ?? now;
  const remind = chosen.map((candidate) => {
    const current = candidate.end !== undefined ? Date.parse(candidate.end) : Number.NaN;
    const base = Number.isNaN(current) ? from : Math.max(from, current);
    const end = o.end ? o.end.getTime() : base + o.extendMs;
    return { candidate, newEnd: `${new Date(Math.floor(end / 1000) * 1000).toISOString().slice(0, 19)}Z` };
  });
  return {
    remind,
    finished: ofTest.length - open.length,
    recent: open.length - due.length,
    overMax: due.length - chosen.length,
  };
}

/** A reminder as plans show it: who, their state and invitation, when last sent, the window's end and new end. */
export function reminderRow({ candidate, newEnd }: Reminder) {
  return {
    email: candidate.email,
    name: candidate.name,
    state: candidate.state,
    testInvitationId: candidate.testInvitationId,
    lastSentAt: candidate.lastSentAt,
    end: candidate.end,
    newEnd,
  };
}
