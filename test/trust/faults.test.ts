/**
 * Faults over real HTTP (sandbox fault injection), as a matrix: every fault of the issue against a read (GET)
 * and against a bulk invite (POST), with what went over the wire and how many rows were lost or duplicated.
 * Extends test/api/client.test.ts (503, 429 Retry-After 0, give-up after --retries, hang on GET) and
 * test/bulk/invite.test.ts (lost answer, reset, 500 on bulk) with the cases they leave out.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { backoffMs, retryAfterMs } from "../../src/api/retry.js";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import type { FaultRule } from "../../src/sandbox/index.js";
import { bulkRequests, invitedCounts, writeCandidates } from "../bulk/helpers.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { lostAndDuplicated, printTable, record } from "./table.js";

const env = useTestEnv({ clearFaults: true });
const tmp = useTempDir("assess-trust-faults-");
afterAll(() => {
  printTable("Faults");
});

const BULK = "/v3/tests/*/invite/bulk";
const PROXY_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>";
/** An HTTP date `seconds` from now (whole seconds, as the header carries them). */
const httpDate = (seconds: number) => new Date(Date.now() + seconds * 1000).toUTCString();
/** The waits the client logged, in ms. */
const waits = (stderr: string) =>
  [...stderr.matchAll(/retrying in ([\d.]+) (ms|s)/g)].map((m) => Number(m[1]) * (m[2] === "s" ? 1000 : 1));

describe("reads (GET) retry and succeed, each wait logged", () => {
  // Rules are built when the test runs: an HTTP date must still be ahead when the request arrives.
  const cases: Array<{ name: string; rule: () => FaultRule; args?: string[]; minWaitMs?: number }> = [
    { name: "429 without Retry-After (×2)", rule: () => ({ kind: "status", status: 429, times: 2 }) },
    {
      name: "429 Retry-After: 1 (seconds)",
      rule: () => ({ kind: "status", status: 429, headers: { "retry-after": "1" } }),
      minWaitMs: 1000,
    },
    {
      name: "429 Retry-After: HTTP date 3 s ahead",
      rule: () => ({ kind: "status", status: 429, headers: { "retry-after": httpDate(3) } }),
      // Backoff alone waits < 500 ms on a first retry: a longer wait comes from the header.
      minWaitMs: 1000,
    },
    { name: "503", rule: () => ({ kind: "status", status: 503 }) },
    { name: "connection reset before processing", rule: () => ({ kind: "reset-before" }) },
    { name: "answer lost after processing", rule: () => ({ kind: "lost-after" }) },
    { name: "hung request (--timeout 300)", rule: () => ({ kind: "hang" }), args: ["--timeout", "300"] },
    {
      name: "non-JSON 502 page from a proxy",
      rule: () => ({ kind: "status", status: 502, body: PROXY_PAGE, contentType: "text/html" }),
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const rules = [c.rule()];
      for (const rule of rules) env.sandbox.faults.add({ method: "GET", path: "/v3/tests", ...rule });
      const faults = rules.reduce((n, r) => n + (r.times ?? 1), 0);
      const mark = env.sandbox.requests.length;
      const r = await env.run(["tests", "list", "--json", ...(c.args ?? [])]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json<unknown[]>().length).toBeGreaterThan(0);
      const sent = env.sandbox.requests.slice(mark).filter((q) => q.path === "/v3/tests");
      expect(sent).toHaveLength(faults + 1);
      const logged = waits(r.stderr);
      expect(logged).toHaveLength(faults);
      // Full jitter: never more than the exponential bound of its attempt (or the Retry-After asked for).
      logged.forEach((ms, attempt) => {
        expect(ms).toBeLessThanOrEqual(c.minWaitMs ? 3000 : 500 * 2 ** attempt);
        if (c.minWaitMs) expect(ms).toBeGreaterThanOrEqual(c.minWaitMs);
      });
      record({
        input: `GET: ${c.name}`,
        outcome: `retried after ${logged.map((ms) => `${ms} ms`).join(", ")} (logged), exit 0`,
        lost: 0,
        duplicated: 0,
      });
    });
  }

  it("retries are bounded: a 503 that never ends → 1 + --retries requests, each wait logged, exit 1", async () => {
    env.sandbox.faults.add({
      method: "GET",
      path: "/v3/tests",
      kind: "status",
      status: 503,
      times: Number.POSITIVE_INFINITY,
    });
    const mark = env.sandbox.requests.length;
    const r = await env.run(["tests", "list", "--retries", "2"]);
    expect(r.code).toBe(1);
    expect(env.sandbox.requests.slice(mark)).toHaveLength(3);
    expect(waits(r.stderr)).toHaveLength(2);
    expect(r.stderr).toMatch(/attempt 3 of 3/);
    expect(r.stderr).toContain("error: Service Unavailable (GET /api/v3/tests)");
    record({
      input: "GET: 503 forever, --retries 2",
      outcome: "3 requests, 2 logged waits, exit 1",
      lost: 0,
      duplicated: 0,
    });
  });

  it("backoff is exponential with full jitter, capped; Retry-After reads seconds and HTTP dates, capped", () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const bound = Math.min(30_000, 500 * 2 ** attempt);
      expect(backoffMs(attempt, () => 0)).toBe(0);
      expect(backoffMs(attempt, () => 0.999_999)).toBe(bound - 1);
      const samples = new Set(Array.from({ length: 50 }, () => backoffMs(attempt)));
      expect([...samples].every((ms) => ms >= 0 && ms < bound)).toBe(true);
      if (attempt > 0) expect(samples.size).toBeGreaterThan(1);
    }
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs("Sat, 21 Nov 2026 10:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Sat, 21 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("86400", now)).toBe(60_000);
    expect(retryAfterMs("soon", now)).toBeUndefined();
  });
});

describe("bulk invite (POST): refused requests are retried; lost answers are uncertain, never resent silently", () => {
  interface BulkCase {
    name: string;
    rule: () => FaultRule;
    args?: string[];
    /** The faulted chunk's outcome is unknown: exit 3, listed, not resent by a plain rerun. */
    uncertain: boolean;
    /** For uncertain chunks: did the service process it (decides what the user's check finds). */
    processed?: boolean;
    minWaitMs?: number;
  }
  const cases: BulkCase[] = [
    {
      name: "429 without Retry-After (×2)",
      rule: () => ({ kind: "status", status: 429, times: 2 }),
      uncertain: false,
    },
    {
      name: "429 Retry-After: HTTP date 3 s ahead",
      rule: () => ({ kind: "status", status: 429, headers: { "retry-after": httpDate(3) } }),
      uncertain: false,
      minWaitMs: 500,
    },
    { name: "503", rule: () => ({ kind: "status", status: 503 }), uncertain: false },
    {
      name: "connection reset before processing",
      rule: () => ({ kind: "reset-before" }),
      uncertain: true,
      processed: false,
    },
    {
      name: "answer lost after processing",
      rule: () => ({ kind: "lost-after" }),
      uncertain: true,
      processed: true,
    },
    {
      name: "hung request (--timeout 400)",
      rule: () => ({ kind: "hang" }),
      args: ["--timeout", "400"],
      uncertain: true,
      processed: false,
    },
    {
      name: "non-JSON 502 page from a proxy",
      rule: () => ({ kind: "status", status: 502, body: PROXY_PAGE, contentType: "text/html" }),
      uncertain: true,
      processed: false,
    },
  ];

  const ROWS = 2000;
  const CHUNK = 500;
  cases.forEach((c, index) => {
    it(c.name, async () => {
      const from = 1_000_000 + index * 10_000;
      const emails = Array.from({ length: ROWS }, (_, i) => `cand${from + i}@example.com`);
      const file = tmp.file(`fault-${index}.csv`);
      writeCandidates(file, ROWS, from);
      const argv = [
        "invite",
        "bulk",
        file,
        "--test",
        "1001",
        "--chunk-size",
        String(CHUNK),
        "--concurrency",
        "1",
      ];
      // The third chunk meets the fault.
      env.sandbox.faults.add({ method: "POST", path: BULK, skip: 2, ...c.rule() });
      const mark = env.sandbox.requests.length;

      const first = await env.run([...argv, ...(c.args ?? []), "--json"]);
      const summary = first.json<BulkResult>();
      const faultedChunk = (q: { body?: unknown }) =>
        (q.body as { candidates: Array<{ email: string }> }).candidates[0]?.email === emails[2 * CHUNK];
      if (c.uncertain) {
        expect(first.code, first.stderr).toBe(3);
        expect(summary).toMatchObject({
          sent: ROWS - CHUNK,
          uncertain: CHUNK,
          chunks: { total: 4, uncertain: 1 },
        });
        expect(summary.uncertainRows[0]).toMatchObject({ line: 2 * CHUNK + 2, label: emails[2 * CHUNK] });
        expect(first.stderr).toMatch(/500 rows have an unknown outcome/);
        // Sent once, not again by the client on its own.
        expect(bulkRequests(env.sandbox, mark).filter(faultedChunk)).toHaveLength(1);
      } else {
        expect(first.code, first.stderr).toBe(0);
        expect(summary).toMatchObject({ sent: ROWS, uncertain: 0, chunks: { total: 4, succeeded: 4 } });
        const logged = waits(first.stderr);
        expect(logged.length).toBeGreaterThan(0);
        if (c.minWaitMs) expect(Math.max(...logged)).toBeGreaterThanOrEqual(c.minWaitMs);
      }

      // A plain rerun sends nothing: confirmed rows are done, uncertain ones are listed, not resent.
      const mark2 = env.sandbox.requests.length;
      const rerun = await env.run([...argv, "--json"]);
      expect(rerun.code).toBe(c.uncertain ? 3 : 0);
      expect(bulkRequests(env.sandbox, mark2)).toHaveLength(0);
      expect(rerun.json<BulkResult>()).toMatchObject({
        alreadyDone: c.uncertain ? ROWS - CHUNK : ROWS,
        uncertain: c.uncertain ? CHUNK : 0,
        sent: 0,
      });

      // The user checks (the documented advice: "check the result before retrying"); rows that never arrived are sent with
      // --retry-uncertain. Here the sandbox knows: it processed the chunk or not.
      let resolution = "";
      if (c.uncertain && !c.processed) {
        const retried = await env.run([...argv, "--retry-uncertain", "--json"]);
        expect(retried.code).toBe(0);
        expect(retried.json<BulkResult>()).toMatchObject({
          sent: CHUNK,
          alreadyDone: ROWS - CHUNK,
          uncertain: 0,
        });
        resolution = "; checked: not there → --retry-uncertain sent those 500 once";
      } else if (c.uncertain) {
        resolution = "; checked: already there → nothing resent";
      }

      const { lost, duplicated } = lostAndDuplicated(invitedCounts(env.sandbox, mark), emails);
      expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
      const logged = waits(first.stderr);
      record({
        input: `bulk POST: ${c.name}`,
        outcome: c.uncertain
          ? `chunk uncertain, exit 3, rows listed; plain rerun sent nothing (exit 3)${resolution}`
          : `retried after ${logged.map((ms) => `${ms} ms`).join(", ")} (logged), exit 0; rerun sent nothing`,
        lost,
        duplicated,
      });
    });
  });

  it("retries are bounded: 429 on every request → each chunk tried 1 + --retries times, failed (exit 3); a rerun sends them once", async () => {
    const from = 1_200_000;
    const emails = Array.from({ length: 1000 }, (_, i) => `cand${from + i}@example.com`);
    const file = tmp.file("always-429.csv");
    writeCandidates(file, 1000, from);
    env.sandbox.faults.add({
      method: "POST",
      path: BULK,
      kind: "status",
      status: 429,
      headers: { "retry-after": "0" },
      times: Number.POSITIVE_INFINITY,
    });
    const argv = ["invite", "bulk", file, "--test", "1001", "--chunk-size", "500", "--concurrency", "1"];
    const mark = env.sandbox.requests.length;
    const first = await env.run([...argv, "--retries", "2", "--json"]);
    expect(first.code).toBe(3);
    expect(first.json<BulkResult>()).toMatchObject({
      failed: 1000,
      uncertain: 0,
      chunks: { total: 2, failed: 2 },
    });
    expect(bulkRequests(env.sandbox, mark)).toHaveLength(6);
    // The first chunk's waits are told; the second's, for the same cause, are counted in one line.
    expect(waits(first.stderr)).toHaveLength(2);
    expect(first.stderr).toMatch(/2 more retries of other requests after HTTP 429 from 127\.0\.0\.1:\d+/);

    env.sandbox.faults.clear();
    const rerun = await env.run([...argv, "--json"]);
    expect(rerun.code).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({ sent: 1000, alreadyDone: 0 });
    const { lost, duplicated } = lostAndDuplicated(invitedCounts(env.sandbox, mark), emails);
    expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
    record({
      input: "bulk POST: 429 forever, --retries 2",
      outcome:
        "each chunk 3 tries, 2 waits logged and 2 counted, chunks failed (exit 3, rows listed); rerun sent them once",
      lost,
      duplicated,
    });
  });

  it("connection refused: never delivered, so a POST is retried; when it never connects, exit 1 and a rerun sends every row once", async () => {
    const closed = await closedPort();
    const from = 1_300_000;
    const emails = Array.from({ length: 1500 }, (_, i) => `cand${from + i}@example.com`);
    const file = tmp.file("refused.csv");
    writeCandidates(file, 1500, from);
    const refused = await env.run(["invite", "bulk", file, "--test", "1001", "--retries", "2"], {
      env: { ASSESS_BASE_URL: `http://127.0.0.1:${closed}/api` },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/connection refused on POST .*retrying in/);
    expect(waits(refused.stderr).length).toBeGreaterThanOrEqual(2);
    expect(refused.stderr).not.toMatch(/unknown outcome|may have been processed/);

    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(run.code).toBe(0);
    const { lost, duplicated } = lostAndDuplicated(invitedCounts(env.sandbox, mark), emails);
    expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
    record({
      input: "bulk POST: connection refused",
      outcome:
        "retried (logged), exit 1 when it never connects, nothing uncertain; rerun sent every row once",
      lost,
      duplicated,
    });
  });
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
