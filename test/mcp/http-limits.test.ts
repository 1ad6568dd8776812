/**
 * `assess mcp --http`'s limits, given small and with a clock the test moves: sessions unused past idleMs are
 * closed (not while serving a request), and past maxSessions a new one is refused until one closes. The tools'
 * service is a gate on loopback that holds each request until the test lets it go; the client is the MCP SDK's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Context } from "../../src/context.js";
import { LIMITS, serveHttp } from "../../src/mcp/http.js";
import { SANDBOX_KEYS } from "../../src/sandbox/index.js";
import { capture, runCli } from "../helpers/cli.js";

const IDLE_MS = 1000;
let clock = 0;
let url: string;
let configDir: string;
const tokens: Record<string, string> = {};
const stop = new AbortController();
let served: Promise<number>;
let ctx: Context;
const stderr = capture();
const open: Client[] = [];

/** The service: every request waits here until `release()` answers it (404). */
const held: ServerResponse[] = [];
let arrived: () => void = () => {};
const gate = createServer((_req, res) => {
  held.push(res);
  arrived();
});
const release = () => {
  for (const res of held.splice(0)) {
    res.writeHead(404, { "Content-Type": "application/json" }).end('{"message":"held, then let go"}');
  }
};

beforeAll(async () => {
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  configDir = mkdtempSync(join(tmpdir(), "assess-mcp-limits-"));
  const env = {
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    ASSESS_BASE_URL: `http://127.0.0.1:${(gate.address() as AddressInfo).port}/api`,
    ASSESS_API_KEY: SANDBOX_KEYS.acme,
    ASSESS_CONFIG_DIR: configDir,
  };
  for (const name of ["ann", "bob"]) {
    const made = await runCli(["mcp", "token", "create", name], { env });
    expect(made.code, made.stderr).toBe(0);
    tokens[name] = made.stdout.trim();
  }
  const io = { stdout: capture().stream, stderr: stderr.stream, stdin: Readable.from([]), env };
  ctx = new Context(io, stop.signal);
  served = serveHttp(ctx, { port: 0 }, { ...LIMITS, maxSessions: 3, idleMs: IDLE_MS, now: () => clock });
  url = await new Promise<string>((resolve, reject) => {
    const seen = () => {
      const match = /Streamable HTTP at (http:\/\/\S+)/.exec(stderr.text());
      if (match) resolve(match[1]!);
    };
    stderr.stream.on("data", seen);
    served.then((code) => reject(new Error(`the server ended (${code}): ${stderr.text()}`)), reject);
  });
});

afterAll(async () => {
  release();
  for (const client of open) await client.close().catch(() => {});
  stop.abort();
  if (served) expect(await served).toBe(0);
  await ctx?.close();
  gate.closeAllConnections();
  await new Promise((resolve) => gate.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "assess-http-limits-test", version: "1.0.0" });
  await client.connect(transport);
  open.push(client);
  return client;
}

/** Ends the client's session (DELETE), as a client that is done does. */
async function end(client: Client) {
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
  open.splice(open.indexOf(client), 1);
}

describe("assess mcp --http: idle sessions", () => {
  it("closes a session unused past idleMs: its id is unknown (404), and a new one opens", async () => {
    const client = await connect(tokens.ann!);
    await client.listTools();
    clock += IDLE_MS; // Not past it yet.
    await client.listTools();
    clock += IDLE_MS + 1;
    await expect(client.listTools()).rejects.toThrow(/No such session: initialize again/);
    const again = await connect(tokens.ann!);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await end(again);
  });

  it("does not close a session while it serves a request, however long that takes", async () => {
    const client = await connect(tokens.ann!);
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const call = client.callTool({ name: "get_test", arguments: { testId: 1001 } });
    call.catch(() => {});
    await reached; // The tool's request waits at the service.
    clock += 10 * IDLE_MS;
    // Another request sweeps the idle sessions; this one is serving, so it stays.
    const other = await connect(tokens.bob!);
    await end(other);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    release();
    const answer = await call;
    expect(answer.isError).toBe(true);
    expect(JSON.stringify(answer.content)).toContain("held, then let go");
    // Its last use is when that answer went out: from there on, it is idle again.
    await client.listTools();
    clock += IDLE_MS + 1;
    await expect(client.listTools()).rejects.toThrow(/No such session/);
  });
});

describe("assess mcp --http: a cap on sessions", () => {
  it("refuses a session past maxSessions (503, try again later) until one closes", async () => {
    clock += 10 * IDLE_MS; // The sessions of the tests above are idle: swept before the next request.
    const three = [await connect(tokens.ann!), await connect(tokens.bob!), await connect(tokens.ann!)];
    await expect(connect(tokens.bob!)).rejects.toThrow(
      /3 sessions are open, the most this server holds: try again later/,
    );
    for (const client of three) await client.listTools();
    await end(three[0]!);
    const fourth = await connect(tokens.bob!);
    expect((await fourth.listTools()).tools.length).toBeGreaterThan(0);
  });
});
