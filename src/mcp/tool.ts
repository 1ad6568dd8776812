/** What a tool of `assess mcp` is (tools.ts holds them all), and what its call gets. */
import {
  OPERATIONS,
  type Operation,
  type OperationRecord,
  PATH_PARAMETERS,
} from "../api/operations/index.js";
import * as s from "../api/schemas.js";
import type { Context } from "../context.js";
import type * as z from "../parse/zod.js";
import type { Client } from "../sdk/client.js";
import type { WriteGroup } from "./groups.js";

export interface ToolEnv {
  /** The command's context (stdout is the protocol's; notices go to stderr). */
  ctx: Context;
  client: Client;
  /** This server's secret for plan tokens (bulk.ts): a token is good only with the server that gave it. */
  planKey: Buffer;
  /**
   * Who the session's writes are recorded as in the audit log (config/audit.ts): over stdio the client's
   * `name/version` from `initialize`; over HTTP the name of the session's token (`assess mcp token create <name>`).
   */
  actor: string;
  /** Told how a long call goes (`done` of `total`), when the client asked to hear it. */
  progress?: (done: number, total: number) => void;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  title: string;
  description: string;
  /** The operation the tool is, or is built on. */
  operation?: Operation;
  effect: OperationRecord["effect"];
  /** Built on first use, as the API layer's schemas are. */
  input: () => S;
  /** The `--allow-writes` group that permits a write tool. */
  writes?: WriteGroup;
  idempotent?: boolean;
  /** Answers its first call with a plan and a token of its own (bulk.ts), so no preview is put before it. */
  plans?: true;
  /** The MCP SDK's client checks every structuredContent against it, an error's too, so it requires nothing. */
  output?: { type: "object"; properties: Record<string, unknown> };
  /** The answer's text and structuredContent. */
  call(env: ToolEnv, args: z.infer<S>): Promise<Record<string, unknown>>;
}

/** Declares a tool with its arguments' type inferred from its schema. */
export function tool<S extends z.ZodType>(definition: Tool<S>): Tool {
  return definition as unknown as Tool;
}

/** The operation a composite tool is built on, and so its effect. */
export function builtOn(operation: Operation) {
  return { operation, effect: OPERATIONS[operation].effect };
}

/** The tool that gives each kind of id. */
export const ID_SOURCES: Record<string, string> = {
  testId: "list_tests",
  testInvitationId: "list_attempts",
  testLinkId: "list_test_links",
  employeeId: "list_employees",
  EmployeeId: "list_employees",
};

/** An id argument: what it is, and the tool that gives it. */
export function idArgument(name: string) {
  const what = PATH_PARAMETERS[name] ?? `the ${name}`;
  const source = ID_SOURCES[name];
  return s.Id.describe(
    `${what[0]!.toUpperCase()}${what.slice(1)} (${name})${source ? `, as ${source} gives it` : ""}`,
  );
}
