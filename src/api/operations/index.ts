/**
 * Every operation of both services, one record each (record.ts says what a record holds): the only place its
 * method and path are spelled. The API layer (api/endpoints.ts) sends and reads it by its record, the SDK's
 * client (sdk/client.ts) puts it at `client.<resource>.<verb>`, `assess openapi` documents it and `assess mcp`
 * offers it as a tool. Adding one: its record, its sandbox route, its verb under src/commands/; the SDK's
 * public interface (sdk/types.ts, written out) shows it once given its line there, and a write is an MCP tool
 * once mcp/operations.ts names its group.
 */
import { ASSESSMENT } from "./assessment.js";
import type { OperationRecord } from "./record.js";
import { SKILLS } from "./skills.js";

export type { Content, Fields, OperationRecord, QueryParameter } from "./record.js";
export { pathParameters } from "./record.js";

export const OPERATIONS = { ...ASSESSMENT, ...SKILLS };
export type Operation = keyof typeof OPERATIONS;

export const PATH_PARAMETERS: Record<string, string> = {
  testId: "the test's id",
  testInvitationId: "the invitation's (attempt's) id",
  testLinkId: "the test link's id",
  employeeId: "the employee's id",
  EmployeeId: "the employee's id",
};

export function operations(): Array<[Operation, OperationRecord]> {
  return Object.entries(OPERATIONS) as Array<[Operation, OperationRecord]>;
}

export function isSkills(path: string): boolean {
  return !path.startsWith("/v3/");
}
