/**
 * Every operation of both services, one record each: the only place its method and path are spelled, and what
 * the rest is derived from. The API layer (api/endpoints.ts) sends and reads each operation by its record, the
 * SDK's client (sdk/client.ts) puts it at `client.<resource>.<verb>`, `assess openapi` (api/openapi.ts)
 * documents it, and `assess mcp` (mcp/operations.ts) offers it as a tool; the table is plain to iterate
 * (`operations()`) for any other face. Adding an operation: its record (assessment.ts or skills.ts), its route
 * in the sandbox, its verb under src/commands/, and, for code to reach it, its line in the SDK's client and in
 * its public types (sdk/types.ts: written out, as a consumer has no zod; the compiler checks the client
 * against them). A read is an MCP tool with nothing more; a write is one only once mcp/operations.ts names
 * its `--allow-writes` group, or is declared out there (test/mcp/tools.test.ts fails until one is done).
 *
 * A record, field by field:
 * - `method`, `path`: the route; `{name}` is a path parameter (an integer id), given in the path's order. Paths
 *   under /v3 are the assessment API's, the others the employee-skills API's (its own base URL).
 * - `resource`, `verb`: where the SDK's client has it (`client.tests.settings.get`: resource `tests.settings`,
 *   verb `get`); unique together.
 * - `summary` (the OpenAPI summary), `tag` (its group) and `description`: what it does, in words a person or a
 *   model reading a tool list can act on.
 * - `effect`: `read` changes nothing; `add` only adds (an invitation, a link, a certificate); `overwrite` may
 *   change or remove what exists (an update, a status, a cancellation, masking).
 * - `query`: its query parameters, as documented. `pagination`: the page parameters, and where the items are
 *   in the answer. `limits`: the most items one request may carry.
 * - `body`: the check of the request body: a strict zod schema (refused before anything is sent), `"fields"`
 *   (any record, sent as given) or `"empty"` (an empty object, always). `read`: how the answer becomes the
 *   value returned (leniently: api/read.ts), `raw` when the answer is read without opening its envelope.
 * - `request`, `response`: the body and answer as the OpenAPI document shows them (a schema of api/openapi.ts's
 *   components by name, or a content type and schema); `created` when the service answers 201 too,
 *   `alsoText` when the answer is also declared as text/plain, `resultErrors` when a 401 may be the
 *   `{result: null, errors}` of ids not in the account.
 */
import { ASSESSMENT } from "./assessment.js";
import type { OperationRecord } from "./record.js";
import { SKILLS } from "./skills.js";

export type { Content, Fields, OperationRecord, QueryParameter } from "./record.js";

/** The table: the assessment API's operations, then the employee-skills API's. */
export const OPERATIONS = { ...ASSESSMENT, ...SKILLS };
export type Operation = keyof typeof OPERATIONS;

/** What each path parameter is. */
export const PATH_PARAMETERS: Record<string, string> = {
  testId: "the test's id",
  testInvitationId: "the invitation's (attempt's) id",
  testLinkId: "the test link's id",
  employeeId: "the employee's id",
  EmployeeId: "the employee's id",
};

/** Each operation with its record, in the table's order. */
export function operations(): Array<[Operation, OperationRecord]> {
  return Object.entries(OPERATIONS) as Array<[Operation, OperationRecord]>;
}

/** Paths under /v3 are the assessment API's; the others the employee-skills API's. */
export function isSkills(path: string): boolean {
  return !path.startsWith("/v3/");
}
