/**
 * Answers of any size: no array from the service is spread into a call (`push(...page)` overflows the stack
 * at some 100,000 items), and `attempts list --limit N` stops reading once it has N. Against small hostile
 * servers on 127.0.0.1; the elapsed time is bounded only as a guard against hanging.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { runBin, runCli, useTempDir } from "../helpers/cli.js";
import { callTool, connectMcp } from "../mcp/helpers.js";

const tmp = useTempDir("assess-hostile-sizes-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Every request answered 200 with `body(index)` (computed once per request). */
async function serve(body: (index: number) => string): Promise<HostileServer> {
  const server = await startHostileServer(({ res, index }) => {
    res.writeHead(200, { "content-type": "application/json" }).end(body(index));
  });
  servers.push(server);
  return server;
}

/** `count` attempts from id `from`, as the listing answers them. */
function attempts(from: number, count: number): string {
  const records = Array.from({ length: count }, (_, i) => `{"testInvitationId":${from + i},"testId":1001}`);
  return `{"result":{"testAttempts":[${records.join(",")}]},"errors":null}`;
}

const env = (server: HostileServer) => ({
  ASSESS_CONFIG_DIR: tmp.file(`config-${Math.random().toString(36).slice(2)}`),
  ASSESS_API_KEY: "sizes-key-0000",
  ASSESS_BASE_URL: server.url,
  ASSESS_SKILLS_BASE_URL: server.url,
  CI: "true",
});

// Built and spawned: a test worker's thread has a larger stack than a user's process, where 150,000 overflow.
describe("answers of 150,000 items", () => {
  it("the MCP list_attempts tool (the SDK's attempts.list) reads a window of 150,000 attempts", async () => {
    const server = await serve(() => attempts(1, 150_000));
    const started = Date.now();
    const mcp = await connectMcp(
      { PATH: process.env.PATH ?? "", ...env(server), ASSESS_BASE_URL: server.url },
      [],
      undefined,
      { built: true },
    );
    try {
      const { result, data } = await callTool(mcp, "list_attempts", {
        from: "2026-01-01",
        to: "2026-01-10",
        limit: 1,
      });
      expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
      expect(data).toMatchObject({ total: 150_000, items: [{ testInvitationId: 1 }] });
    } finally {
      await mcp.close();
    }
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it("callbacks resend answered with 150,000 failed ids it never sent: exit 3, the ids reported", async () => {
    const failed = Array.from({ length: 150_000 }, (_, i) => 1_000_000 + i).join(",");
    const server = await serve(
      () => `{"result":{"testinvitationIds":{"successful":[7001],"failed":[${failed}]}},"errors":null}`,
    );
    const r = await runBin(["callbacks", "resend", "7001", "--json"], { env: env(server) });
    expect(r.stderr).not.toMatch(/call stack|looks like a bug/);
    expect(r.code, r.stderr.slice(0, 2000)).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(r.json<{ unmatched: string[] }>().unmatched[0]).toBe(
      "the service named id 1000000, which was not sent",
    );
    expect(r.ms).toBeLessThan(30_000);
  }, 60_000);
});

describe("attempts list --limit N", () => {
  it("--limit 1 over two years reads the first window only, not the 25 of the span", async () => {
    const server = await serve((index) => attempts(1 + index * 1000, 1000));
    const started = Date.now();
    const r = await runCli(
      ["attempts", "list", "--from", "2024-01-01", "--to", "2025-12-31", "--yes", "--limit", "1", "--json"],
      { env: env(server) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<unknown[]>()).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
