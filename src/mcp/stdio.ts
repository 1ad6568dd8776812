/**
 * The stdio transport of `assess mcp`: one JSON-RPC message a line, each line read up to a bound. The MCP SDK's
 * own (StdioServerTransport) buffers a line whole and, past its bound, closes: the server then vanished with
 * exit 0. Here a longer line is dropped as it arrives (never held whole), answered with a JSON-RPC error
 * (id null: its id was never read), and the next line is read as usual. A line that is not a message is told
 * to `onerror` and dropped. The end of stdin ends the server (`ended`); a failure of either stream is fatal.
 */
import type { Readable, Writable } from "node:stream";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC's "Invalid Request". */
export const INVALID_REQUEST = -32600;
/** JSON-RPC's code for a message that is not JSON. */
export const PARSE_ERROR = -32700;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The start of the line being read. */
  private parts: Buffer[] = [];
  private size = 0;
  /** The line being read is over the bound: its bytes are dropped up to its end. */
  private dropping = false;
  /** Settles when stdin ends (resolved) or a stream fails (rejected). */
  readonly ended: Promise<void>;
  private end!: () => void;
  private fail!: (error: Error) => void;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxLineBytes: number,
  ) {
    this.ended = new Promise((resolve, reject) => {
      this.end = resolve;
      this.fail = reject;
    });
    // Unhandled until run() awaits it, which it does once the server is connected.
    this.ended.catch(() => {});
  }

  private readonly onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const piece = newline === -1 ? rest : rest.subarray(0, newline);
      rest = newline === -1 ? Buffer.alloc(0) : rest.subarray(newline + 1);
      if (!this.dropping && this.size + piece.length > this.maxLineBytes) this.tooLong();
      if (!this.dropping) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (newline === -1) break;
      const line = this.dropping ? undefined : Buffer.concat(this.parts, this.size);
      this.parts = [];
      this.size = 0;
      this.dropping = false;
      if (line !== undefined) this.receive(line.toString("utf8").replace(/\r$/, ""));
    }
  };

  /** Answers the line being read with an error at once, and drops it. */
  private tooLong(): void {
    this.dropping = true;
    this.parts = [];
    this.size = 0;
    this.refuse(
      INVALID_REQUEST,
      `A message longer than ${this.maxLineBytes / (1024 * 1024)} MiB was dropped unread; send less in one call`,
    );
  }

  /** A message the server cannot take, told on stderr and answered as JSON-RPC says (id null): the next is served. */
  private refuse(code: number, message: string): void {
    this.onerror?.(new Error(message));
    this.send({ jsonrpc: "2.0", id: null, error: { code, message } } as never).catch(() => {});
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    try {
      JSON.parse(line);
    } catch {
      this.refuse(PARSE_ERROR, "A line that is not JSON was dropped: each line is one JSON-RPC message");
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.refuse(
        INVALID_REQUEST,
        `A message that is not JSON-RPC was dropped: ${(error as Error).message.slice(0, 200)}`,
      );
      return;
    }
    this.onmessage?.(message);
  }

  private readonly onEnd = () => this.end();
  private readonly onFailure = (error: Error) => this.fail(error);

  async start(): Promise<void> {
    // A stream that ended or failed before the server started tells no one again.
    if (this.stdin.errored) this.fail(this.stdin.errored);
    else if (this.stdin.readableEnded || this.stdin.destroyed) this.end();
    this.stdin.on("data", this.onData);
    this.stdin.once("end", this.onEnd);
    this.stdin.once("close", this.onEnd);
    this.stdin.on("error", this.onFailure);
    this.stdout.on("error", this.onFailure);
  }

  /** Settles when the stream takes the message, or once it is written (a listener each would pile up). */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message), () => resolve())) resolve();
    });
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("close", this.onEnd);
    this.stdin.off("error", this.onFailure);
    this.stdout.off("error", this.onFailure);
    // Read no more: a stdin still flowing keeps the process alive, after a fatal error or Ctrl-C too.
    this.stdin.pause();
    this.parts = [];
    this.onclose?.();
  }
}
