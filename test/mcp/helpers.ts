/**
 * `assess mcp` as an assistant drives it, through the MCP SDK's own client: run by main(argv, io) in this
 * process on streams of its own, or, with `built`, spawned from the built CLI (bin/assess.js) over stdio.
 */
import { join } from "node:path";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { main } from "../../src/cli.js";

export const BIN = join(import.meta.dirname, "..", "..", "bin", "assess.js");

/**
 * `assess mcp <flags>` with `env`, connected (initialize done). Every message both ways and the server's stderr
 * go to `transcript` when one is given. `built`: the built CLI in a child process (where the process is the
 * subject: its stack, say), else main() in-process, as the built CLI runs it.
 */
export async function connectMcp(
  env: Record<string, string>,
  flags: string[],
  transcript?: string[],
  options: { built?: boolean } = {},
): Promise<Client> {
  let transport: Transport;
  if (options.built) {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", ...flags],
      env,
      stderr: "pipe",
    });
    stdio.stderr?.on("data", (chunk: Buffer) => transcript?.push(chunk.toString("utf8")));
    transport = stdio;
  } else {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stderr.on("data", (chunk: Buffer) => transcript?.push(chunk.toString("utf8")));
    const served = main(["mcp", ...flags], { stdin, stdout, stderr, env: { ...env } });
    transport = new StreamTransport(stdin, stdout, served);
  }
  const client = new Client({ name: "assess-test", version: "1.0.0" });
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => {
    transcript?.push(JSON.stringify(message));
    return send(message, sendOptions);
  };
  await client.connect(transport);
  const receive = transport.onmessage!;
  transport.onmessage = (message) => {
    transcript?.push(JSON.stringify(message));
    receive(message);
  };
  return client;
}

/**
 * The client's end of a server run in-process: messages written to its stdin, read from its stdout, one JSON
 * line each (the SDK's own framing); closing ends its stdin, as a client's exit does, and waits for main().
 */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: Writable,
    private readonly fromServer: Readable,
    private readonly served: Promise<number>,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (!message) break;
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    await this.served;
    this.onclose?.();
  }
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
