/**
 * The bulk tools of `assess mcp`: a call without `planToken` answers with a plan (the engine's dry run); the
 * same call with the plan's token sends, through the CLI's engine and ledger, so nothing confirmed is sent
 * again. The token is an HMAC (under this process's secret) of the tool, target, settings, rows and the
 * plan's counts: a token of another call or server, or of a plan the ledger has since changed, is refused.
 */

import { OPERATIONS } from "../api/operations/index.js";
import * as s from "../api/schemas.js";
import { ledgerDir } from "../bulk/engine/ledger.js";
import { runBulk } from "../bulk/engine/run.js";
import type { BulkResult } from "../bulk/engine/summary.js";
import type { BulkEntry } from "../bulk/engine/types.js";
import { type Job as BulkJob, entriesOf, type Service } from "../bulk/jobs/index.js";
import { inviteJob } from "../bulk/jobs/invite.js";
import { remindJob } from "../bulk/jobs/remind.js";
import { resendJob } from "../bulk/jobs/resend.js";
import { upsertJob } from "../bulk/jobs/upsert.js";
import { InvitationBook } from "../core/invitation-book.js";
import { invitationStatus, planReminders, reminderRow } from "../core/invitation-status.js";
import { DryRunStop, UsageError } from "../errors.js";
import { parseDate } from "../parse/dates.js";
import * as z from "../parse/zod.js";
import { sign } from "./confirm.js";
import { builtOn, type Tool, type ToolEnv } from "./tool.js";

/** Rows one call takes: the bound on what a model sends in one message. */
const MAX_ROWS = 1000;

type Kind = "invite" | "upsert" | "callbacks" | "remind";

/** A call's job (bulk/jobs/), its rows, and what else decides what is sent, for the token. */
interface Call {
  job: BulkJob<never, unknown>;
  entries: BulkEntry<unknown>[];
  /** The rows' group: the test of a bulk invite. */
  group?: string;
  /** A bulk invite's dates and proctoring. */
  settings?: unknown;
  /** What else the plan shows (reminders: each one's new window end, who was left out and why). */
  shown?: Record<string, unknown>;
}

/** Where a tool's jobs send: the server's client, the embedded sandbox with `assess --sandbox mcp`. */
const serviceOf = (env: ToolEnv): Service => ({
  api: env.client.api,
  embeddedSandbox: env.ctx.flags.sandbox === true,
});

const planToken = () =>
  z
    .string()
    .max(100)
    .optional()
    .describe(
      "Omit to get the plan (nothing is sent); then call again with the same arguments and the plan's planToken to send",
    );

const HOW =
  " First call it without planToken: nothing is sent, and the answer is a plan (rows to send, already done by an earlier run, repeated, invalid, of unknown outcome) with a planToken. Show the plan to the user; only once they agree, call again with the same arguments and that planToken. Rows an earlier run (or the CLI) confirmed are never sent twice.";

const HOUR_MS = 3_600_000;

const SPECS: Record<Kind, Omit<Tool, "call"> & { job(env: ToolEnv, args: never): Call | Promise<Call> }> = {
  invite: {
    ...builtOn("bulkInvite"),
    title: "Invite many candidates to a test",
    description: `Invites up to ${MAX_ROWS} candidates ({email, name}) to one test, each with a unique link, in requests of up to ${OPERATIONS.bulkInvite.limits.items}. Dates are UTC YYYY-MM-DDTHH:mm:ssZ.${HOW}`,
    writes: "invite",
    input: () =>
      z.strictObject({
        testId: s.Id.describe("The test's id, as list_tests gives it"),
        candidates: z
          .array(s.BulkCandidate)
          .min(1)
          .max(MAX_ROWS)
          .describe("The candidates, each {email, name}; an e-mail given twice is invited once"),
        ...s.BulkInviteSettings.unwrap().shape,
        planToken: planToken(),
      }),
    job: (
      env,
      args: { testId: number; candidates: s.BulkCandidate[]; planToken?: string } & s.BulkInviteSettings,
    ) => {
      const { testId, candidates, planToken: _token, ...settings } = args;
      const job = inviteJob(serviceOf(env), settings);
      const group = String(testId);
      return { job, group, settings, entries: entriesOf(job, candidates, group, (row) => row.email) };
    },
  },
  upsert: {
    ...builtOn("upsertEmployees"),
    title: "Create or update many employees",
    description: `Creates or updates up to ${MAX_ROWS} employees (email, firstName, lastName, jobCode, employeeHRMSInfo), in requests of up to ${OPERATIONS.upsertEmployees.limits.items}; an employee unchanged since a confirmed earlier run is not sent again.${HOW}`,
    writes: "employees",
    input: () =>
      z.strictObject({
        employees: z
          .array(s.EmployeeUpsertItem)
          .min(1)
          .max(MAX_ROWS)
          .describe(
            "The employees, each with its e-mail; an e-mail given twice with other values is invalid",
          ),
        planToken: planToken(),
      }),
    job: (env, { employees }: { employees: s.EmployeeUpsertItem[] }) => {
      const job = upsertJob(serviceOf(env));
      return {
        job,
        entries: entriesOf<s.EmployeeUpsertItem, unknown>(job, employees, "", (row) => row.email),
      };
    },
  },
  callbacks: {
    ...builtOn("processCallbacks"),
    title: "Resend test-completion notifications",
    description: `Asks the service to send again the completion notifications (callbacks) of up to ${MAX_ROWS} attempts, in requests of up to ${OPERATIONS.processCallbacks.limits.items}; the ids are testInvitationIds, as list_attempts gives them.${HOW}`,
    writes: "callbacks",
    input: () =>
      z.strictObject({
        testInvitationIds: z
          .array(s.Id)
          .min(1)
          .max(MAX_ROWS)
          .describe("The attempts' testInvitationIds, as list_attempts gives them"),
        planToken: planToken(),
      }),
    job: (env, { testInvitationIds }: { testInvitationIds: number[] }) => {
      const job = resendJob(serviceOf(env));
      return { job, entries: entriesOf(job, testInvitationIds) };
    },
  },
  remind: {
    // Each reminder resets an invitation the service holds (a new window): it changes what exists.
    effect: "overwrite",
    title: "Remind candidates who have not finished a test",
    description: `Re-invites, with the invitation e-mail, the candidates of a test invited from this machine (see invitation_status) who have not finished and were last sent an invitation more than olderThanHours ago, giving each a new window (the service resets a pending or expired invitation). At most ${MAX_ROWS} per call, those sent longest ago first; each reminder is sent once (the CLI's \`invite remind\` shares its ledger).${HOW}`,
    writes: "invite",
    input: () =>
      z.strictObject({
        testId: s.Id.describe("The test's id, as list_tests or invitation_status gives it"),
        olderThanHours: z
          .number()
          .min(0)
          .max(24 * 365)
          .optional()
          .describe("Only candidates invited or last reminded longer ago than this many hours (default 48)"),
        end: z
          .string()
          .min(1)
          .max(40)
          .optional()
          .describe("The new window's end for everyone: YYYY-MM-DD, an ISO time, or +7d (from now)"),
        extendDays: z
          .number()
          .min(1)
          .max(365)
          .optional()
          .describe(
            "Else: the new window ends this many days after the later of now and its current end (default 5)",
          ),
        max: z
          .number()
          .int()
          .min(1)
          .max(MAX_ROWS)
          .optional()
          .describe(`At most this many (default ${MAX_ROWS})`),
        planToken: planToken(),
      }),
    job: async (
      env,
      args: { testId: number; olderThanHours?: number; end?: string; extendDays?: number; max?: number },
    ) => {
      if (args.end !== undefined && args.extendDays !== undefined)
        throw new UsageError("end and extendDays both set the new window's end: give one");
      // To the hour: the plan and its confirming call, moments apart, give each candidate the same new end.
      const hour = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
      const end = args.end === undefined ? undefined : parseDate(args.end, "end", "end", hour);
      if (end !== undefined && end.getTime() < Date.now())
        throw new UsageError(
          `end (${args.end}) is in the past: the invitations would be expired from the start`,
        );
      const book = InvitationBook.at(env.ctx.connection.bookPlace());
      const status = await invitationStatus(env.ctx, env.client.api, book, { tests: [args.testId] });
      const plan = planReminders(status, {
        testId: args.testId,
        olderThanMs: (args.olderThanHours ?? 48) * HOUR_MS,
        end,
        extendMs: (args.extendDays ?? 5) * 24 * HOUR_MS,
        max: args.max ?? MAX_ROWS,
        endFrom: hour,
      });
      const job = remindJob(serviceOf(env));
      const group = String(args.testId);
      return {
        job,
        group,
        entries: entriesOf(job, plan.remind, group, (r) => r.candidate.email),
        shown: {
          reminders: plan.remind.map(reminderRow),
          finished: plan.finished,
          sentRecently: plan.recent,
          overMax: plan.overMax,
        },
      };
    },
  },
};

/** The tool of a bulk operation: its plan, or with the plan's token, its run. */
export function bulkTool(kind: Kind): Tool {
  const { job: jobOf, ...spec } = SPECS[kind];
  return {
    ...spec,
    plans: true,
    call: async (env, args) => {
      const job = await jobOf(env, args as never);
      // Nobody to remind: no run to plan (the engine refuses an input without rows).
      if (job.entries.length === 0)
        return {
          plan: true,
          ...(job.group !== undefined ? { testId: Number(job.group) } : {}),
          ...job.shown,
          rows: 0,
          toSend: 0,
          next: "Nothing to send.",
        };
      const plan = await run(env, job, true);
      const token = tokenOf(env.planKey, job, plan.result);
      const given = (args as { planToken?: string }).planToken;
      if (given === undefined) return planAnswer(job, plan, token);
      if (given !== token) {
        throw new UsageError(
          "planToken is not the token of this plan: the arguments, or what earlier runs confirmed, changed since it was given (or it came from another server); nothing was sent",
          "Call again without planToken to see the current plan.",
        );
      }
      if (plan.result.invalid > 0) {
        throw new UsageError(
          `${plan.result.invalid} row(s) are invalid; nothing was sent`,
          "Fix or drop them, then plan again.",
          plan.result.invalidRows.map((row) => `rows[${row.line - 1}]: ${row.error ?? "invalid"}`),
        );
      }
      const { result } = await run(env, job, false);
      return {
        done: true,
        rows: result.rows,
        valid: result.valid,
        invalid: result.invalid,
        duplicates: result.duplicates,
        alreadyDone: result.alreadyDone,
        sent: result.sent,
        uncertain: result.uncertain,
        failed: result.failed,
        unsent: result.unsent,
        chunks: result.chunks,
        failures: rowList(result.failures),
        uncertainRows: rowList(result.uncertainRows),
        unmatched: result.unmatched,
      };
    },
  };
}

/** A run through the engine (a dry run for a plan); `toSend` lists the rows no class took. */
async function run(env: ToolEnv, { job, entries }: Call, dryRun: boolean) {
  const settled = new Set<number>();
  const client = env.client.api.transport;
  const result = await runBulk<unknown>({
    ...job,
    inputName: "rows",
    locate: (line) => `rows[${line - 1}]`,
    read: () => [entries],
    ledgerDir: ledgerDir(env.ctx.io.env),
    chunkSize: job.maxChunk,
    concurrency: 2,
    // Invalid rows are a class of the plan; a run with any is refused before it starts (bulkTool).
    skipInvalid: true,
    dryRun,
    signal: env.ctx.signal,
    conflictReason: (line) => `conflicts with rows[${line - 1}]: the same e-mail with other values`,
    watchRateLimits: (listener) => client.onRateLimited(listener),
    onNotice: (message) => env.ctx.warn(message),
    onProgress: dryRun ? undefined : ({ done }) => env.progress?.(done, entries.length),
    onRow: (line) => {
      settled.add(line);
    },
    send: async (group, rows) => {
      if (dryRun) throw new DryRunStop();
      return job.send(group, rows);
    },
  });
  const toSend = entries.flatMap(({ row }) =>
    row && !settled.has(row.line) ? [{ row: row.line - 1, item: row.label }] : [],
  );
  return { result, toSend };
}

function planAnswer(call: Call, { result, toSend }: Awaited<ReturnType<typeof run>>, token: string) {
  const next =
    result.invalid > 0
      ? "Nothing can be sent while rows are invalid: fix or drop them, then plan again."
      : toSend.length > 0
        ? "Call again with the same arguments and this planToken to send."
        : "Nothing to send.";
  return {
    plan: true,
    ...(call.group !== undefined ? { testId: Number(call.group) } : {}),
    ...call.shown,
    rows: result.rows,
    toSend: toSend.length,
    alreadyDone: result.alreadyDone,
    duplicates: result.duplicates,
    invalid: result.invalid,
    uncertain: result.uncertain,
    requests: result.chunks.total,
    rowsToSend: toSend,
    invalidRows: rowList(result.invalidRows),
    duplicateRows: rowList(result.duplicateRows),
    uncertainRows: rowList(result.uncertainRows),
    ...(toSend.length > 0 && result.invalid === 0 ? { planToken: token } : {}),
    next,
  };
}

function rowList(rows: BulkResult["invalidRows"]) {
  return rows.map((row) => ({
    row: row.line - 1,
    item: row.label,
    ...(row.error ? { reason: row.error } : {}),
  }));
}

function tokenOf(key: Buffer, { job, entries, group = "", settings }: Call, result: BulkResult): string {
  const rows = entries.map((entry) => (entry.row ? [entry.row.key, entry.row.json] : ["invalid"]));
  const counts = [
    result.rows,
    result.invalid,
    result.duplicates,
    result.alreadyDone,
    result.uncertain,
    result.wouldSend ?? 0,
  ];
  return sign(key, [job.kind, job.target(group), settings, rows, counts]);
}
