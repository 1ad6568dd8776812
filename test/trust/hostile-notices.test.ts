/**
 * Notices said once: a rate limit at its lowest is not said again after every 429, and a refused port's retries
 * are told for one request, the others' counted in one line. Against servers on 127.0.0.1 written for them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-hostile-notices-");
const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const env = (url: string) => ({
  ASSESS_CONFIG_DIR: tmp.file(`config-${Math.random().toString(36).slice(2)}`),
  ASSESS_API_KEY: "notices-key-0000",
  ASSESS_BASE_URL: url,
  CI: "true",
});

describe("the rate limit is said once at each new low", () => {
  it("callbacks resend against a service that answers each chunk 429 once: one notice of 1 request at once", async () => {
    let answered = 0;
    const refusedOnce = new Set<number>();
    const server = await startHostileServer(({ req, res }) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const ids = (JSON.parse(Buffer.concat(chunks).toString()) as { testinvitationIds: number[] })
          .testinvitationIds;
        // Each chunk's first request is refused 429, its retry answered.
        if (!refusedOnce.has(ids[0]!)) {
          refusedOnce.add(ids[0]!);
          res.writeHead(429, { "retry-after": "0", "content-type": "application/json" });
          res.end('{"message":"Too many requests"}');
          return;
        }
        answered++;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ result: { testinvitationIds: { successful: ids, failed: [] } }, errors: null }),
        );
      });
    });
    servers.push(server);
    const ids = Array.from({ length: 2000 }, (_, i) => String(10_001 + i));
    const started = Date.now();
    const r = await runCli(["callbacks", "resend", "--file", "-", "--json"], {
      env: env(server.url),
      stdin: `${ids.join("\n")}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(answered).toBe(20);
    expect(server.requests).toHaveLength(40);
    expect(r.stderr.match(/rate-limiting \(HTTP 429\)/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/rate-limiting \(HTTP 429\): 1 request at once from now on/);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});

describe("retries on a refused port are told once", () => {
  it("attempts list over four windows: one request's waits, the other three's in one line, exit 1", async () => {
    // A port that was just listening: nothing listens on it now.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const started = Date.now();
    const r = await runCli(
      ["attempts", "list", "--from", "2026-01-01", "--to", "2026-04-25", "--retries", "3"],
      { env: env(`http://127.0.0.1:${port}`) },
    );
    expect(r.code, r.stderr).toBe(1);
    const retries = r.stderr.split("\n").filter((line) => /retr(y|ies)/i.test(line));
    expect(retries.filter((line) => /retrying in/.test(line))).toHaveLength(3);
    // The other requests' retries until the first one's error ended the command: how many depends on timing.
    const others = retries.filter((line) => / more retr(y|ies) of other requests after /.test(line));
    expect(others).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: [1-9] more retr(y|ies) of other requests after connection refused \\(127\\.0\\.0\\.1:${port}\\)$`,
        ),
      ),
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
