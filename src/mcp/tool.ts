/** What a tool of `assess mcp` is (tools.ts holds them all), and what its call gets. */
import type { Context } from "../context.js";
import type * as z from "../parse/zod.js";
import type { Client } from "../sdk/client.js";
import type { WriteGroup } from "./groups.js";

export interface ToolEnv {
  /** The command's context: its settings, signal, stderr for notices (stdout is the protocol's). */
  ctx: Context;
  client: Client;
  /** This server's secret for plan tokens (bulk.ts): a token is good only with the server that gave it. */
  planKey: Buffer;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  title: string;
  /** What a model reads to choose the tool and fill its arguments. */
  description: string;
  /** The arguments; built on first use, as the API layer's schemas are. */
  input: () => S;
  /** Undefined for reads; else the `--allow-writes` group that permits the tool. */
  writes?: WriteGroup;
  /** Removes or masks something for good, or takes back what a candidate was given. */
  destructive?: boolean;
  /** Calling it twice with the same arguments does nothing more the second time. */
  idempotent?: boolean;
  /** The result, a JSON object: both the text and the structuredContent of the tool's answer. */
  call(env: ToolEnv, args: z.infer<S>): Promise<Record<string, unknown>>;
}

/** Declares a tool with its arguments' type inferred from its schema. */
export function tool<S extends z.ZodType>(definition: Tool<S>): Tool {
  return definition as unknown as Tool;
}
