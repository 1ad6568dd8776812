/**
 * The tools of `assess mcp` that are one operation each, derived from its record (api/operations/): title,
 * description, input (path ids, a cursor when paged, query parameters, the body's zod schema), annotations
 * (its effect), and the call `Api.call` (or `Api.page`).
 *
 * OFFERS declares only how an operation is offered: a read needs no entry (its tool is named in snake case
 * unless `name` says otherwise); a write is a tool only once `writes` names its `--allow-writes` group;
 * `excluded` keeps one out, `instead` names the composite tool of tools.ts in its place.
 * test/mcp/tools.test.ts checks that every operation is a tool or declared out.
 */

import type { Api, Paged, Read } from "../api/endpoints.js";
import {
  type Operation,
  type OperationRecord,
  operations,
  pathParameters,
  type QueryParameter,
} from "../api/operations/index.js";
import { MAX_PAGES } from "../api/pager.js";
import * as s from "../api/schemas.js";
import { UsageError } from "../errors.js";
import { isRecord } from "../fields.js";
import * as z from "../parse/zod.js";
import type { WriteGroup } from "./groups.js";
import { idArgument, type Tool } from "./tool.js";

type ZodObject = ReturnType<typeof z.strictObject>;
type QueryValues = Record<string, string | number | boolean | undefined>;

interface Offered {
  name?: string;
  writes?: WriteGroup;
  idempotent?: true;
  /** The body's fields, for an operation whose record takes any fields (`body: "fields"`). */
  body?: () => ZodObject;
  /** Body fields the schema leaves optional that the tool requires: a call without one is refused unsent. */
  required?: readonly string[];
}
type Offer = Offered | { excluded: string } | { instead: string };

const CANDIDATE = ["emailId", "fullName"] as const;

export const OFFERS: { readonly [O in Operation]?: Offer } = {
  getSettings: { name: "get_test_settings" },
  listLinks: { name: "list_test_links" },
  getLink: { name: "get_test_link" },
  getReportPdf: { excluded: "a PDF file, not text a model reads" },
  listAttempts: { instead: "list_attempts" },

  // The service cannot invite nobody: a call without the candidate's e-mail or name is refused unsent.
  invite: { name: "invite_candidate", writes: "invite", required: CANDIDATE },
  inviteThroughLink: { writes: "invite", required: CANDIDATE },
  cancelInvitation: { writes: "invite", idempotent: true },
  reattempt: { name: "reattempt_invitation", writes: "invite" },
  bulkInvite: { instead: "invite_candidates" },
  createLink: { name: "create_test_link", writes: "links" },
  updateLink: { name: "update_test_link", writes: "links", idempotent: true },
  processCallbacks: { instead: "resend_callbacks" },
  createUser: { writes: "users" },
  updateUser: { writes: "users", idempotent: true },
  setUserStatus: { writes: "users", idempotent: true },
  maskCandidate: { writes: "gdpr", idempotent: true },
  upsertEmployees: { instead: "upsert_employees" },
  setEmployeeStatus: {
    writes: "employees",
    idempotent: true,
    body: () => z.strictObject({ status: s.EmployeeStatus.describe("The new status") }),
  },
  updateSettings: { excluded: "not among the writes offered to assistants" },
  addCertificate: { excluded: "not among the writes offered to assistants" },
  assignLearning: { excluded: "not among the writes offered to assistants" },
  uploadResume: { excluded: "its body is a file, which a model cannot send" },
};

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 50;

export const paging = {
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

/** What a page of a paged tool holds; nothing is required, as an error's answer fits it too. */
const PAGE_OUTPUT = {
  type: "object",
  properties: {
    items: { type: "array", items: { type: "object" } },
    page: { type: "integer", minimum: 1 },
    total: { type: "number", description: "Items in all pages, when the service says" },
    nextCursor: { type: "string", description: "The cursor of the next page; absent on the last" },
  },
} as const satisfies Tool["output"];

/** The tools of the operations OFFERS lets through, by name (of the table, or of one a test gives). */
export function operationTools(
  table: ReadonlyArray<readonly [string, OperationRecord]> = operations(),
): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const [name, record] of table) {
    const operation = name as Operation;
    const offer = OFFERS[operation] ?? {};
    if ("excluded" in offer || "instead" in offer) continue;
    if (record.effect !== "read" && offer.writes === undefined) continue;
    const snakeCase = operation.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    tools[offer.name ?? snakeCase] = toolOf(operation, record, offer);
  }
  return tools;
}

/** An operation's tool; what the derivation cannot offer yet is refused here, when the server starts. */
function toolOf(operation: Operation, record: OperationRecord, offer: Offered): Tool {
  const refuse = (why: string) => {
    throw new Error(
      `mcp: the operation ${operation} ${why}; declare how it is offered in src/mcp/operations.ts`,
    );
  };
  if (record.effect === "read" && offer.writes !== undefined) refuse("is a read, yet names a write group");
  const ids = pathParameters(record.path);
  const paged = record.pagination;
  const query = (record.query ?? []).filter((q) => q.name !== paged?.page && q.name !== paged?.size);
  if (paged && (ids.length > 0 || query.length > 0 || record.body !== undefined)) {
    refuse("is paged and takes other arguments, which paged tools do not pass yet");
  }
  if (!paged && !record.read) refuse("has no reader of its answer (Api.call needs one)");
  if (record.body === "fields" && !offer.body)
    refuse('takes any fields (body "fields"), so its tool needs `body`');
  const body = (): ZodObject["shape"] => {
    if (offer.body) return offer.body().shape;
    if (typeof record.body !== "object") return {};
    const schema = record.body as unknown as { unwrap?: () => unknown };
    const object = (typeof schema.unwrap === "function" ? schema.unwrap() : schema) as ZodObject;
    // A path parameter the body may repeat (TestLinkBody's testId) is the path's.
    const fields = Object.entries(object.shape).filter(([name]) => !ids.includes(name));
    return Object.fromEntries(
      fields.map(([name, field]) => [
        name,
        offer.required?.includes(name) ? (field as { unwrap(): z.ZodType }).unwrap() : field,
      ]),
    );
  };

  return {
    operation,
    title: record.summary,
    description: record.description,
    effect: record.effect,
    writes: offer.writes,
    idempotent: offer.idempotent,
    ...(paged ? { output: PAGE_OUTPUT } : {}),
    input: () =>
      z.strictObject({
        ...Object.fromEntries(ids.map((name) => [name, idArgument(name)])),
        ...(paged ? paging : {}),
        ...Object.fromEntries(query.map((q) => [q.name, queryArgument(q)])),
        ...body(),
      }),
    call: async ({ client }, args: Record<string, unknown>) => {
      if (paged) {
        const { page, size } = readCursor(
          args.cursor as string | undefined,
          args.pageSize as number | undefined,
        );
        const result = await client.api.page(operation as Paged, page, size);
        return {
          items: result.items,
          page,
          ...(result.total !== undefined ? { total: result.total } : {}),
          // No cursor past the pager's cap: a service that always says there is more cannot page a client forever.
          ...(result.more && result.items.length > 0 && page < MAX_PAGES
            ? { nextCursor: `p${page + 1}s${size}` }
            : {}),
        };
      }
      // The arguments are the path's ids, the query's parameters, and the body's fields.
      const named = [...ids, ...query.map((q) => q.name)];
      const path = ids.map((name) => args[name]) as never;
      const values = Object.fromEntries(query.map((q) => [q.name, args[q.name]])) as QueryValues;
      const fields = Object.fromEntries(Object.entries(args).filter(([name]) => !named.includes(name)));
      const sent = (record.body === undefined ? undefined : fields) as never;
      return toolResult(client.api, await client.api.call(operation as Read, path, sent, { query: values }));
    },
  };
}

/**
 * An answer as a tool's result, always an object: a list under `items`, anything else under `result`; a write's
 * answer that could not be read (the write was accepted) as it came, with the warning said of it.
 */
export function toolResult(api: Api, result: unknown): Record<string, unknown> {
  const warning = api.unreadWarning(result);
  if (warning !== undefined) return { result: result ?? null, warning };
  if (isRecord(result)) return result;
  return Array.isArray(result) ? { items: result } : { result: result ?? null };
}

/** A query parameter's argument, from its documented JSON Schema (the few kinds the table holds). */
function queryArgument({ name, schema, required, description }: QueryParameter) {
  const values = schema.enum;
  const kinds: Record<string, () => z.ZodType> = {
    integer: () => z.number().int(),
    number: () => z.number(),
    boolean: () => z.boolean(),
    string: () => z.string().max(200),
  };
  const kind = typeof schema.type === "string" ? kinds[schema.type] : undefined;
  if (!Array.isArray(values) && !kind) {
    throw new Error(
      `mcp: the query parameter ${name}'s schema ${JSON.stringify(schema)} is not one a tool takes yet`,
    );
  }
  const argument = Array.isArray(values) ? z.literal(values as Array<string | number>) : kind!();
  const described = argument.describe(`${description[0]!.toUpperCase()}${description.slice(1)}`);
  return required ? described : described.optional();
}

/** A cursor is the next page and its size, as this server wrote it. */
function readCursor(cursor: string | undefined, pageSize = DEFAULT_PAGE_SIZE) {
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
