/** `assess mcp` spawned from the built CLI (bin/assess.js) and driven by the MCP SDK's own client over stdio. */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const BIN = join(import.meta.dirname, "..", "..", "bin", "assess.js");

/**
 * `assess mcp <flags>` spawned with `env` and connected (initialize done). Every message both ways and the
 * server's stderr go to `transcript` when one is given.
 */
export async function connectMcp(
  env: Record<string, string>,
  flags: string[],
  transcript?: string[],
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...flags],
    env,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => transcript?.push(chunk.toString("utf8")));
  const client = new Client({ name: "assess-test", version: "1.0.0" });
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    transcript?.push(JSON.stringify(message));
    return send(message);
  };
  await client.connect(transport);
  const receive = transport.onmessage!;
  transport.onmessage = (message) => {
    transcript?.push(JSON.stringify(message));
    receive(message);
  };
  return client;
}

/** A tool call's result, its text, and its structuredContent. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { result, text, data: result.structuredContent as Record<string, unknown> };
}

/** The notice and the block a result gives the service's data in: its boundary, and the JSON it holds, read. */
export function untrustedBlock(text: string): {
  notice: string;
  boundary: string;
  json: string;
  value: unknown;
} {
  const match =
    /^(Untrusted data from the assessment service[^\n]*)\n<untrusted-data-([0-9a-f]{24})>\n([^\n]*)\n<\/untrusted-data-\2>(\n|$)/.exec(
      text,
    );
  if (!match) throw new Error(`no block marked untrusted in ${JSON.stringify(text.slice(0, 300))}`);
  return { notice: match[1]!, boundary: match[2]!, json: match[3]!, value: JSON.parse(match[3]!) };
}
