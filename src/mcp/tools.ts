/**
 * The tools of `assess mcp`: one per operation (operations.ts), and the composites written here (the attempts
 * of any period, a period's statistics, a link's status) or in bulk.ts. A composite built on an operation has
 * that operation's effect, and so its annotations.
 */

import * as s from "../api/schemas.js";
import { MAX_WINDOWS_UNASKED, spanOf, windowCount } from "../core/periods.js";
import { statsOfPeriod } from "../core/stats.js";
import { UsageError } from "../errors.js";
import { toServiceTime } from "../parse/dates.js";
import * as z from "../parse/zod.js";
import { bulkTool } from "./bulk.js";
import { withPreview } from "./confirm.js";
import { operationTools, paging, toolResult } from "./operations.js";
import { builtOn, idArgument, type Tool, tool } from "./tool.js";
import { UNTRUSTED_NOTE } from "./untrusted.js";

/** The most attempts one call of list_attempts returns; nextCursor gives the rest. */
const MAX_ATTEMPTS = 500;

const text = () => z.string().min(1).max(40);

/** The most candidates one call of invitation_status lists. */
const MAX_CANDIDATES = 500;

const period = {
  from: text().describe(
    "Start: YYYY-MM-DD, an ISO time (2026-11-21T09:00:00Z), now, or 7d / 24h for that long ago",
  ),
  to: text().describe("End, in the same forms; a bare date includes that whole day"),
};

/** A period as the CLI reads --from and --to, refused when it would take more calls than it does unasked. */
function periodOf(args: { from: string; to: string }) {
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

const COMPOSITE: Record<string, Tool> = {
  list_attempts: tool({
    ...builtOn("listAttempts"),
    title: "List finished attempts of a period",
    description:
      "Attempts finished (Completed, Test left or Terminated) in a period of any length (split into 30-day calls): testInvitationId, testId, name, email, testStatus (teststatus in older answers). Get scores with get_report or report_stats.",
    input: () =>
      z.strictObject({
        ...period,
        state: text().optional().describe('The service\'s state filter (default "completed")'),
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
  report_stats: tool({
    effect: "read",
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
      const { stats } = await statsOfPeriod(ctx, client.api, periodOf(span), { testIds, passMark });
      return { tests: stats };
    },
  }),
  invite_candidates: bulkTool("invite"),
  invitation_status: tool({
    effect: "read",
    title: "Who was invited from here and has not finished",
    description:
      "Per test, the candidates invited from this machine (the CLI's, the SDK's and this server's invitations, kept in the invitation book) and how many have finished (the attempt listing), are pending (window open) or expired (window passed); with candidates, each one with its state, invitation id, window end and last reminder. remind_candidates re-invites those who have not finished.",
    input: () =>
      z.strictObject({
        testIds: z
          .array(s.Id)
          .max(50)
          .optional()
          .describe("Only these tests (default: every test invited to)"),
        from: text()
          .optional()
          .describe(
            "Only candidates first invited at or after this: YYYY-MM-DD, an ISO time, or 30d for 30 days ago",
          ),
        candidates: z.boolean().optional().describe(`Also list each candidate (at most ${MAX_CANDIDATES})`),
      }),
    call: async ({ client, ctx }, { testIds, from, candidates }) => {
      const status = await client.invitations.status({ tests: testIds, from, signal: ctx.signal });
      if (!candidates) return { tests: status.tests };
      return {
        tests: status.tests,
        candidates: status.candidates.slice(0, MAX_CANDIDATES),
        ...(status.candidates.length > MAX_CANDIDATES
          ? { more: status.candidates.length - MAX_CANDIDATES }
          : {}),
      };
    },
  }),
  remind_candidates: bulkTool("remind"),
  set_test_link_status: tool({
    ...builtOn("updateLink"),
    title: "Activate or deactivate a test link",
    description: "Sets a link's status to active or inactive; nothing else of the link changes.",
    writes: "links",
    idempotent: true,
    input: () =>
      z.strictObject({
        testId: idArgument("testId"),
        testLinkId: idArgument("testLinkId"),
        status: s.TestLinkBody.unwrap().shape.testLinkStatus.unwrap(),
      }),
    call: async ({ client }, { testId, testLinkId, status }) =>
      toolResult(client.api, await client.testLinks.update(testId, testLinkId, { testLinkStatus: status })),
  }),
  resend_callbacks: bulkTool("callbacks"),
  upsert_employees: bulkTool("upsert"),
};

/**
 * Every tool: an overwrite without a plan of its own previews first (confirm.ts), and each says that its answer
 * is the service's data, marked untrusted (untrusted.ts).
 */
export const TOOLS: Record<string, Tool> = { ...operationTools() };
for (const [name, composite] of Object.entries(COMPOSITE)) {
  if (Object.hasOwn(TOOLS, name)) throw new Error(`mcp: two tools are named ${name}`);
  TOOLS[name] = composite;
}
for (const [name, tool] of Object.entries(TOOLS)) {
  const previewed = tool.effect === "overwrite" && !tool.plans ? withPreview(name, tool) : tool;
  TOOLS[name] = { ...previewed, description: `${previewed.description}${UNTRUSTED_NOTE}` };
}

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
