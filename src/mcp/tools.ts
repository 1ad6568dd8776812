/**
 * The tools of `assess mcp`, one table: each tool's name, what a model reads of it, its input (a zod schema:
 * the API layer's own where there is one, so the JSON Schema a client sees is the one requests are checked
 * against), its annotations, and the SDK call it makes (src/sdk/client.ts). Reads carry `readOnlyHint`;
 * writes name the `--allow-writes` group that permits them. Bulk writes (bulk.ts) answer with a plan first.
 *
 * When the operations are declared one record each (resource, verb, description, read-only, destructive),
 * this table is meant to be derived from that one: its entries are already one per operation.
 */

import type { Page } from "../api/endpoints.js";
import * as s from "../api/schemas.js";
import { statsOfPeriod } from "../commands/reports/stats.js";
import { MAX_WINDOWS_UNASKED } from "../commands/shared/verbs.js";
import { UsageError } from "../errors.js";
import { toServiceTime } from "../parse/dates.js";
import * as z from "../parse/zod.js";
import { spanOf, windowCount } from "../sdk/attempts.js";
import { bulkTool } from "./bulk.js";
import { type Tool, tool } from "./tool.js";

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 50;
/** The most attempts one call of list_attempts returns; nextCursor gives the rest. */
const MAX_ATTEMPTS = 500;

const testId = () => s.Id.describe("The test's id (testId), as list_tests gives it");
const testInvitationId = () =>
  s.Id.describe("The attempt's id (testInvitationId), as list_attempts gives it");
const employeeId = () => s.Id.describe("The employee's id, as list_employees gives it");
const paging = {
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe("nextCursor of the previous call, for the next page; omit for the first"),
  pageSize: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .optional()
    .describe(`Items per page (default ${DEFAULT_PAGE_SIZE})`),
};
const period = {
  from: z
    .string()
    .min(1)
    .max(40)
    .describe("Start: YYYY-MM-DD, an ISO time (2026-11-21T09:00:00Z), now, or 7d / 24h for that long ago"),
  to: z.string().min(1).max(40).describe("End, in the same forms; a bare date includes that whole day"),
};

/** A cursor is the next page and its size, as this server wrote it. */
function readCursor(
  cursor: string | undefined,
  pageSize = DEFAULT_PAGE_SIZE,
): { page: number; size: number } {
  if (cursor === undefined) return { page: 1, size: pageSize };
  const match = /^p(\d{1,7})s(\d{1,3})$/.exec(cursor);
  const page = Number(match?.[1]);
  const size = Number(match?.[2]);
  if (!match || page < 1 || size < 1 || size > MAX_PAGE_SIZE) {
    throw new UsageError(
      `cursor "${cursor}" is not one this server gave`,
      "Pass the nextCursor of the previous result unchanged, or omit it for the first page.",
    );
  }
  return { page, size };
}

async function paged<T>(
  args: { cursor?: string; pageSize?: number },
  fetch: (page: number, size: number) => Promise<Page<T>>,
): Promise<Record<string, unknown>> {
  const { page, size } = readCursor(args.cursor, args.pageSize);
  const result = await fetch(page, size);
  return {
    items: result.items,
    page,
    ...(result.total !== undefined ? { total: result.total } : {}),
    ...(result.more && result.items.length > 0 ? { nextCursor: `p${page + 1}s${size}` } : {}),
  };
}

/** A period as the CLI reads --from and --to, refused when it would take more calls than it does unasked. */
function periodOf(args: { from: string; to: string }): { start: Date; end: Date } {
  const span = spanOf(args);
  const calls = windowCount(span);
  if (calls > MAX_WINDOWS_UNASKED) {
    throw new UsageError(
      `from … to takes ${calls} calls to the service (one per 30 days); at most ${MAX_WINDOWS_UNASKED} are made here`,
      "Ask for a shorter period (about two years at most).",
    );
  }
  return span;
}

const linkFields = () => s.TestLinkBody.unwrap().omit({ testId: true }).shape;

export const TOOLS: Record<string, Tool> = {
  // Reads of the assessment service
  list_tests: tool({
    title: "List tests",
    description:
      "The account's tests (testId, testName, status, duration), one page at a time. Use it to find a test's id by its name.",
    input: () => z.strictObject({ ...paging }),
    call: async ({ client }, args) => paged(args, (page, pageSize) => client.tests.list({ page, pageSize })),
  }),
  get_test: tool({
    title: "Get a test",
    description: "One test with its details and sections.",
    input: () => z.strictObject({ testId: testId() }),
    call: async ({ client }, { testId }) => client.tests.get(testId),
  }),
  get_test_settings: tool({
    title: "Get a test's settings",
    description:
      "A test's settings: name, alias, type (1 multiple questions, 2 single question) and its yes/no flags (1 yes, 0 no) such as randomQuestions, copyPaste, candidateFeedback.",
    input: () => z.strictObject({ testId: testId() }),
    call: async ({ client }, { testId }) => client.tests.settings.get(testId),
  }),
  list_test_links: tool({
    title: "List a test's links",
    description:
      "The test links of a test: named entry points with an invitation type (email/open), proctoring mode, schedule and status (active/inactive).",
    input: () => z.strictObject({ testId: testId() }),
    call: async ({ client }, { testId }) => ({ items: await client.testLinks.list(testId) }),
  }),
  get_test_link: tool({
    title: "Get a test link",
    description: "One test link of a test, with its schedule and proctoring settings.",
    input: () => z.strictObject({ testId: testId(), testLinkId: s.Id.describe("The link's id") }),
    call: async ({ client }, { testId, testLinkId }) => client.testLinks.get(testId, testLinkId),
  }),
  list_attempts: tool({
    title: "List finished attempts of a period",
    description:
      "Attempts finished (Completed, Test left or Terminated) in a period of any length (split into 30-day calls): testInvitationId, testId, name, email, teststatus. Get scores with get_report or report_stats.",
    input: () =>
      z.strictObject({
        ...period,
        state: z
          .string()
          .min(1)
          .max(40)
          .optional()
          .describe('The service\'s state filter (default "completed")'),
        cursor: paging.cursor,
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_ATTEMPTS)
          .optional()
          .describe(`Attempts per call (default and most ${MAX_ATTEMPTS})`),
      }),
    call: async ({ client, ctx }, args) => {
      const span = periodOf(args);
      const offset = args.cursor === undefined ? 0 : readOffset(args.cursor);
      const limit = args.limit ?? MAX_ATTEMPTS;
      const all = await client.attempts.list({
        from: span.start,
        to: span.end,
        state: args.state,
        signal: ctx.signal,
      });
      const items = all.slice(offset, offset + limit);
      return {
        from: toServiceTime(span.start),
        to: toServiceTime(span.end),
        total: all.length,
        items,
        ...(offset + limit < all.length ? { nextCursor: `o${offset + limit}` } : {}),
      };
    },
  }),
  get_report: tool({
    title: "Get a candidate's report",
    description:
      "The report of one attempt: candidate, test, status, scorePercentage, points, time taken, sections with their scores.",
    input: () => z.strictObject({ testInvitationId: testInvitationId() }),
    call: async ({ client }, { testInvitationId }) => client.reports.get(testInvitationId),
  }),
  report_stats: tool({
    title: "Results statistics of a period",
    description:
      "Per test, the attempts finished in a period with their statuses and score statistics (mean, median, p10, p90, min, max, in %), pass rate against passMark, a histogram and attempts per day. Answers questions like 'who passed the Java test this week above 70%' together with list_attempts and get_report.",
    input: () =>
      z.strictObject({
        ...period,
        testIds: z
          .array(s.Id)
          .max(50)
          .optional()
          .describe("Only these tests (default: every test with attempts)"),
        passMark: z
          .number()
          .min(0)
          .max(100)
          .optional()
          .describe("Pass mark, a score percentage from 0 to 100"),
      }),
    call: async ({ client, ctx }, { testIds, passMark, ...span }) => {
      const { stats } = await statsOfPeriod(ctx, client, periodOf(span), { testIds, passMark });
      return { tests: stats };
    },
  }),

  // Reads of the employee-skills service
  list_employees: tool({
    title: "List employees",
    description: "Employees with their profile, organisation and job details, one page at a time.",
    input: () => z.strictObject({ ...paging }),
    call: async ({ client }, args) =>
      paged(args, (page, pageSize) => client.employees.list({ page, pageSize })),
  }),
  list_skills_profiles: tool({
    title: "List employees' skills profiles",
    description: "Employees with their skills profiles, one page at a time.",
    input: () => z.strictObject({ ...paging }),
    call: async ({ client }, args) =>
      paged(args, (page, pageSize) => client.employees.skillsProfiles.list({ page, pageSize })),
  }),
  get_skills_profile: tool({
    title: "Get an employee's skills profile",
    description: "The complete skills profile of one employee.",
    input: () => z.strictObject({ employeeId: employeeId() }),
    call: async ({ client }, { employeeId }) => client.employees.skillsProfile(employeeId),
  }),
  list_certificates: tool({
    title: "List an employee's certificates",
    description: "The certificates of one employee, optionally with the skills inferred from each.",
    input: () =>
      z.strictObject({
        employeeId: employeeId(),
        withSkills: z.boolean().optional().describe("Include each certificate's skills"),
      }),
    call: async ({ client }, { employeeId, withSkills }) => ({
      items: await client.employees.certificates.list(employeeId, { includeSkills: withSkills === true }),
    }),
  }),
  get_skill_gap: tool({
    title: "Get an employee's skill gap",
    description: "The skills an employee lacks for their job profile.",
    input: () => z.strictObject({ employeeId: employeeId() }),
    call: async ({ client }, { employeeId }) => client.employees.skillGap(employeeId),
  }),
  get_employee_report: tool({
    title: "Get an employee's report of a test",
    description: "The most recent completed report of an employee for one test.",
    input: () => z.strictObject({ employeeId: employeeId(), testId: testId() }),
    call: async ({ client }, { employeeId, testId }) => client.employees.report(employeeId, testId),
  }),

  // Writes: offered only with --allow-writes (or its group)
  invite_candidate: tool({
    title: "Invite a candidate to a test",
    description:
      "Invites one candidate (emailId, fullName) to a test and answers with the invitation's testInvitationId and link. Dates are UTC YYYY-MM-DDTHH:mm:ssZ. sendEmail 'yes' e-mails the candidate.",
    writes: "invite",
    input: () => z.strictObject({ testId: testId(), ...s.InviteBody.unwrap().shape }),
    call: async ({ client }, { testId, ...body }) => client.invitations.create(testId, body),
  }),
  invite_through_link: tool({
    title: "Invite a candidate through a test link",
    description: "Invites one candidate through one of the test's links (list_test_links gives them).",
    writes: "invite",
    input: () =>
      z.strictObject({
        testId: testId(),
        testLinkId: s.Id.describe("The link's id"),
        ...s.LinkInviteBody.unwrap().shape,
      }),
    call: async ({ client }, { testId, testLinkId, ...body }) =>
      client.testLinks.invite(testId, testLinkId, body),
  }),
  cancel_invitation: tool({
    title: "Cancel an invitation",
    description: "Cancels a candidate's invitation: the candidate can no longer take the test through it.",
    writes: "invite",
    destructive: true,
    idempotent: true,
    input: () => z.strictObject({ testInvitationId: testInvitationId() }),
    call: async ({ client }, { testInvitationId }) => client.invitations.cancel(testInvitationId),
  }),
  reattempt_invitation: tool({
    title: "Let a candidate take a test again",
    description:
      "Gives a candidate another attempt of the same invitation, with new dates (UTC YYYY-MM-DDTHH:mm:ssZ) if given.",
    writes: "invite",
    input: () => z.strictObject({ testInvitationId: testInvitationId(), ...s.ReattemptBody.unwrap().shape }),
    call: async ({ client }, { testInvitationId, ...body }) =>
      client.invitations.reattempt(testInvitationId, body),
  }),
  invite_candidates: bulkTool("invite"),
  create_test_link: tool({
    title: "Create a test link",
    description:
      "Creates a named entry point of a test: testLinkName, invitationType (email/open), proctoringSettings, invitationSchedule (validityindays with invitationValidityInDays and timeZoneId; timebound or slotwise with startDateTime, endDateTime and timeZoneId), testLinkStatus.",
    writes: "links",
    input: () => z.strictObject({ testId: testId(), ...linkFields() }),
    call: async ({ client }, { testId, ...body }) => client.testLinks.create(testId, body),
  }),
  update_test_link: tool({
    title: "Change a test link",
    description:
      "Changes the given settings of a test link (the fields of create_test_link); others are kept.",
    writes: "links",
    idempotent: true,
    input: () =>
      z.strictObject({ testId: testId(), testLinkId: s.Id.describe("The link's id"), ...linkFields() }),
    call: async ({ client }, { testId, testLinkId, ...body }) =>
      client.testLinks.update(testId, testLinkId, body),
  }),
  set_test_link_status: tool({
    title: "Activate or deactivate a test link",
    description: "Sets a link's status to active or inactive; nothing else of the link changes.",
    writes: "links",
    idempotent: true,
    input: () =>
      z.strictObject({ testId: testId(), testLinkId: s.Id.describe("The link's id"), status: s.LinkStatus }),
    call: async ({ client }, { testId, testLinkId, status }) =>
      client.testLinks.update(testId, testLinkId, { testLinkStatus: status }),
  }),
  resend_callbacks: bulkTool("callbacks"),
  upsert_employees: bulkTool("upsert"),
  set_employee_status: tool({
    title: "Set an employee's status",
    description: "Sets an employee's status: Active, Inactive, OnLeave or Exited.",
    writes: "employees",
    idempotent: true,
    input: () =>
      z.strictObject({
        employeeId: employeeId(),
        status: z.enum(["Active", "Inactive", "OnLeave", "Exited"]),
      }),
    call: async ({ client }, { employeeId, status }) => client.employees.setStatus(employeeId, { status }),
  }),
  create_user: tool({
    title: "Create a user",
    description:
      "Creates a user of the account (role Reviewer, default business unit unless businessunitId); the user gets an e-mail to set a password.",
    writes: "users",
    input: () => s.UserCreateBody.unwrap(),
    call: async ({ client }, body) => client.users.create(body),
  }),
  update_user: tool({
    title: "Move a user to a business unit",
    description: "Sets the business unit (BusinessunitId) of the user with this Email.",
    writes: "users",
    idempotent: true,
    input: () => s.UserUpdateBody.unwrap(),
    call: async ({ client }, body) => client.users.update(body),
  }),
  set_user_status: tool({
    title: "Activate or deactivate a user",
    description: "Active users can sign in; Inactive ones cannot (their data is kept).",
    writes: "users",
    idempotent: true,
    input: () => s.UserStatusBody.unwrap(),
    call: async ({ client }, body) => client.users.setStatus(body),
  }),
  mask_candidate: tool({
    title: "Mask a candidate's personal data (GDPR)",
    description:
      "Masks for good the personal data of the candidate with this CandidateEmail: every record of the account, or only the attempt testinvitationId when given. It cannot be undone.",
    writes: "gdpr",
    destructive: true,
    idempotent: true,
    input: () => s.GdprBody.unwrap(),
    call: async ({ client }, body) => ({ result: await client.gdpr.mask(body) }),
  }),
};

function readOffset(cursor: string): number {
  const match = /^o(\d{1,9})$/.exec(cursor);
  if (!match) {
    throw new UsageError(
      `cursor "${cursor}" is not one this server gave`,
      "Pass the nextCursor of the previous result unchanged, with the same from and to.",
    );
  }
  return Number(match[1]);
}
