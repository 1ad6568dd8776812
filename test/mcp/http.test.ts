/**
 * `assess mcp --http` as a team uses it: tokens made with `assess mcp token create`, the server run in-process
 * against a sandbox on loopback, and the MCP SDK's own Streamable HTTP client (raw requests where the point is
 * a status or a header).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { LIMITS } from "../../src/mcp/http.js";
import { SANDBOX_KEYS, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { capture, runCli } from "../helpers/cli.js";
import { callTool as call } from "./helpers.js";

let sandbox: Sandbox;
let configDir: string;
let env: Record<string, string>;
let url: string;
const stop = new AbortController();
let served: Promise<number>;
const stderr = capture();
const tokens: Record<string, string> = {};
const open: Client[] = [];

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function cli(argv: string[]) {
  const r = await runCli(argv, { env });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

beforeAll(async () => {
  sandbox = await startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills" });
  configDir = mkdtempSync(join(tmpdir(), "assess-mcp-http-"));
  env = {
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    ASSESS_BASE_URL: sandbox.url,
    ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
    ASSESS_CONFIG_DIR: configDir,
  };
  // The server's profile (default) is acme's; the token of --profile globex sends globex's key.
  await cli(["config", "set", "api-key", SANDBOX_KEYS.acme]);
  await cli(["--profile", "globex", "config", "set", "api-key", SANDBOX_KEYS.globex]);
  for (const [name, ...flags] of [["reader"], ["writer", "--allow-writes", "invite"], ["gone"], ["other"]]) {
    tokens[name!] = (await cli(["mcp", "token", "create", name!, ...flags])).stdout.trim();
  }
  tokens.globex = (await cli(["--profile", "globex", "mcp", "token", "create", "globex"])).stdout.trim();

  const stdout = capture();
  served = main(
    ["mcp", "--http", "--port", "0"],
    { stdout: stdout.stream, stderr: stderr.stream, stdin: Readable.from([]), env },
    { signal: stop.signal },
  );
  url = await new Promise<string>((resolve, reject) => {
    const seen = () => {
      const match = /Streamable HTTP at (http:\/\/\S+)/.exec(stderr.text());
      if (match) resolve(match[1]!);
    };
    stderr.stream.on("data", seen);
    served.then((code) => reject(new Error(`the server ended (${code}): ${stderr.text()}`)));
  });
});

afterAll(async () => {
  for (const client of open) await client.close().catch(() => {});
  stop.abort();
  if (served) expect(await served).toBe(0);
  await sandbox?.close();
  rmSync(configDir, { recursive: true, force: true });
});

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "assess-http-test", version: "1.0.0" });
  await client.connect(transport);
  open.push(client);
  return client;
}

/** A raw POST of initialize with these headers: its status, headers and body. */
function post(headers: Record<string, string>, body: unknown = INITIALIZE) {
  const target = new URL(url);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            ...headers,
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on("data", (chunk: Buffer) => parts.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(parts).toString("utf8"),
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(typeof body === "string" ? body : JSON.stringify(body));
    },
  );
}

const lastSeq = () => sandbox.requests.at(-1)?.seq ?? 0;
const sentSince = (seq: number) => sandbox.requests.filter((r) => r.seq > seq);

describe("assess mcp token", () => {
  it("keeps only each token's hash, in a file only its owner reads", async () => {
    const file = join(configDir, "mcp-tokens.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(file, "utf8");
    for (const token of Object.values(tokens)) {
      expect(token).toMatch(/^assess_mcp_[\w-]{43}$/);
      expect(text).not.toContain(token);
    }
    const listed = (await cli(["mcp", "token", "list", "--json"])).json<Array<Record<string, unknown>>>();
    expect(listed.map((t) => [t.name, t.allowWrites, t.profile])).toEqual([
      ["reader", [], null],
      ["writer", ["invite"], null],
      ["gone", [], null],
      ["other", [], null],
      ["globex", [], "globex"],
    ]);
    const again = await runCli(["mcp", "token", "create", "reader"], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('A token named "reader" exists already');
  });

  it("a token file that is not JSON is named, with what to do (exit 2), not taken for a bug", async () => {
    const dir = mkdtempSync(join(tmpdir(), "assess-mcp-tokens-"));
    try {
      writeFileSync(join(dir, "mcp-tokens.json"), "garbage\n", { mode: 0o600 });
      const broken = { ...env, ASSESS_CONFIG_DIR: dir };
      for (const argv of [
        ["mcp", "token", "list"],
        ["mcp", "token", "create", "ann"],
      ]) {
        const r = await runCli(argv, { env: broken });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain("mcp-tokens.json is not a token file assess wrote");
        expect(r.stderr).not.toMatch(/bug in assess/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("assess mcp --http", () => {
  it("refuses a request without a token, or with a wrong one: 401 with WWW-Authenticate", async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="assess mcp"');
    const wrong = await post({ Authorization: `Bearer ${tokens.reader!.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["www-authenticate"]).toMatch(/error="invalid_token"/);
    await expect(connect("assess_mcp_nope")).rejects.toThrow(/A valid bearer token is needed/);
  });

  it("refuses a browser page of another origin (403), and a Host that is not the address listened on", async () => {
    const auth = { Authorization: `Bearer ${tokens.reader}` };
    const evil = await post({ ...auth, Origin: "http://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.body).toContain("Origin http://evil.example may not call this server");
    expect((await post({ ...auth, Origin: "null" })).status).toBe(403);
    const rebound = await post({ ...auth, Host: `evil.example:${new URL(url).port}` });
    expect(rebound.status).toBe(403);
    const local = await post({ ...auth, Origin: "http://localhost:6274" });
    expect(local.status).toBe(200);
    // A name that merely starts like a loopback address is anyone's domain (127.0.0.1.nip.io, 127.1.evil.com).
    for (const origin of [
      "http://127.0.0.1.nip.io",
      "http://127.1.evil.example",
      "https://127.0.0.1.evil.example:8808",
    ]) {
      expect((await post({ ...auth, Origin: origin })).status, origin).toBe(403);
    }
    for (const origin of ["http://127.0.0.1:5173", "http://127.1.2.3", "http://[::1]:6274"]) {
      expect((await post({ ...auth, Origin: origin })).status, origin).toBe(200);
    }
  });

  it("refuses a body over 4 MiB (413) and goes on", async () => {
    const big = await post({ Authorization: `Bearer ${tokens.reader}` }, "x".repeat(4 * 1024 * 1024 + 1));
    expect(big.status).toBe(413);
    expect((await post({ Authorization: `Bearer ${tokens.reader}` })).status).toBe(200);
  });

  it("with a read-only token: read tools only, and a write refused with nothing sent", async () => {
    const client = await connect(tokens.reader!);
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name === "list_tests")).toBe(true);
    expect(tools.some((tool) => tool.name === "invite_candidate")).toBe(false);
    const read = await call(client, "get_test", { testId: 1001 });
    expect(read.data).toMatchObject({ testId: 1001 });
    const before = lastSeq();
    const refused = await call(client, "invite_candidate", {
      testId: 1001,
      emailId: "http.reader@example.com",
      fullName: "Http Reader",
    });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toContain("this server was started read-only");
    expect(sentSince(before)).toEqual([]);
  });

  it("with a write token: the write is done, once", async () => {
    const client = await connect(tokens.writer!);
    const before = lastSeq();
    const invited = await call(client, "invite_candidate", {
      testId: 1001,
      emailId: "http.writer@example.com",
      fullName: "Http Writer",
    });
    expect(invited.result.isError, invited.text).toBeFalsy();
    const sent = sentSince(before).filter(
      (r) => r.method === "POST" && /\/tests\/1001\/invite$/.test(r.path),
    );
    expect(sent.map((r) => r.body)).toEqual([
      { emailId: "http.writer@example.com", fullName: "Http Writer" },
    ]);
    // The audit log names the token as who acted, not the client's own name.
    const lines = readFileSync(join(configDir, "audit.log"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.operation === "invite")).toEqual([
      expect.objectContaining({ surface: "mcp", actor: "writer", outcome: "ok" }),
    ]);
  });

  it("sends each token's profile's key: a globex token sees globex's tests", async () => {
    const acme = await call(await connect(tokens.reader!), "list_tests", {});
    const globex = await call(await connect(tokens.globex!), "list_tests", {});
    const ids = (answer: typeof acme) =>
      (answer.data.items as Array<{ testId: number }>).map((t) => t.testId);
    expect(ids(acme).length).toBeGreaterThan(0);
    expect(ids(globex).length).toBeGreaterThan(0);
    expect(ids(globex).filter((id) => ids(acme).includes(id))).toEqual([]);
  });

  it("a session is its token's: another token's requests do not reach it (404)", async () => {
    const client = await connect(tokens.reader!);
    const session = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const theirs = await post({ Authorization: `Bearer ${tokens.other}`, "Mcp-Session-Id": session }, list);
    expect(theirs.status).toBe(404);
    const own = await post(
      {
        Authorization: `Bearer ${tokens.reader}`,
        "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": "2025-06-18",
      },
      list,
    );
    expect(own.status).toBe(200);
  });

  it("refuses a revoked token from its next request, its open session too", async () => {
    const client = await connect(tokens.gone!);
    expect((await call(client, "get_test", { testId: 1001 })).data).toMatchObject({ testId: 1001 });
    await cli(["mcp", "token", "revoke", "gone"]);
    await expect(client.callTool({ name: "get_test", arguments: { testId: 1001 } })).rejects.toThrow(
      /A valid bearer token is needed/,
    );
    expect((await post({ Authorization: `Bearer ${tokens.gone}` })).status).toBe(401);
  });

  it("a token made again under a revoked one's name does not reach the old token's sessions", async () => {
    const first = (await cli(["mcp", "token", "create", "again", "--allow-writes", "invite"])).stdout.trim();
    const opened = await post({ Authorization: `Bearer ${first}` });
    expect(opened.status).toBe(200);
    const session = opened.headers["mcp-session-id"] as string;
    await cli(["mcp", "token", "revoke", "again"]);
    const second = (await cli(["mcp", "token", "create", "again"])).stdout.trim();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const reached = await post({ Authorization: `Bearer ${second}`, "mcp-session-id": session }, list);
    expect(reached.status).toBe(404);
  });

  it(`one token cannot take every session: past ${LIMITS.maxSessionsPerToken}, its least recently used is closed`, async () => {
    const auth = { Authorization: `Bearer ${tokens.other}` };
    const first = await post(auth);
    expect(first.status).toBe(200);
    for (let i = 0; i < 120; i++) expect((await post(auth)).status).toBe(200);
    // Another token still gets a session; the first session of the one that opened 121 is gone (404).
    expect((await post({ Authorization: `Bearer ${tokens.reader}` })).status).toBe(200);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const session = String(first.headers["mcp-session-id"]);
    const stale = { ...auth, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18" };
    expect((await post(stale, list)).status).toBe(404);
  });

  it("a bulk tool sends notifications/progress to a client that gives a progress token", async () => {
    const client = await connect(tokens.writer!);
    const candidates = Array.from({ length: 5 }, (_, i) => ({
      email: `http.bulk${i}@example.com`,
      name: `Http Bulk ${i}`,
    }));
    const plan = await call(client, "invite_candidates", { testId: 1002, candidates });
    expect(plan.data.planToken, plan.text).toEqual(expect.any(String));
    const progress: Progress[] = [];
    const done = (await client.callTool(
      { name: "invite_candidates", arguments: { testId: 1002, candidates, planToken: plan.data.planToken } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;
    expect(done.structuredContent).toMatchObject({ done: true, sent: 5 });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ progress: 5, total: 5 });
  });
});
