/**
 * Rate limits (HTTP 429) slow a bulk run down instead of failing it: the client retries each 429 (within
 * --retries, pausing every worker), and the engine keeps fewer requests in flight until the service lets them
 * through, then speeds up again. Counts, not timings.
 */
import { describe, expect, it, vi } from "vitest";
import { toJson } from "../../src/api/json.js";
import { AdaptiveLimit } from "../../src/bulk/engine/adaptive-limit.js";
import { runBulk } from "../../src/bulk/engine/run.js";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import type { BulkEntry } from "../../src/bulk/engine/types.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

const env = useTestEnv();
const tmp = useTempDir("assess-rate-limit-");

describe("AdaptiveLimit", () => {
  it("halves on a 429, once per pace: a 429 to a request sent before the decrease does not count again", () => {
    let now = 1000;
    const limit = new AdaptiveLimit(8, () => now);
    expect(limit.rateLimited(999)).toBe(true);
    expect(limit.current).toBe(4);
    // Sent at the old pace, answered later: no second decrease.
    now = 1010;
    expect(limit.rateLimited(1000)).toBe(false);
    expect(limit.current).toBe(4);
    // Sent after the decrease and still refused: the new pace is too fast too.
    expect(limit.rateLimited(1005)).toBe(true);
    expect(limit.current).toBe(2);
    now = 1020;
    expect(limit.rateLimited(1015)).toBe(true);
    expect(limit.current).toBe(1);
    // At one request at a time there is nothing left to lower.
    now = 1030;
    expect(limit.rateLimited(1025)).toBe(false);
    expect(limit.current).toBe(1);
  });

  it("grows back by one after each `current` answered requests in a row, up to the maximum", () => {
    const limit = new AdaptiveLimit(4, () => 0);
    limit.rateLimited(1);
    expect(limit.current).toBe(2);
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      limit.answered();
      seen.push(limit.current);
    }
    expect(seen).toEqual([2, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]);
  });
});

describe("runBulk under a rate limit", () => {
  it("keeps fewer chunks in flight after a 429, says so, and speeds up again as answers come", async () => {
    const notices: string[] = [];
    let rateLimited: ((sentAt: number) => void) | undefined;
    let started = 0;
    let inFlight = 0;
    let peakAfter = 0;
    const answer: Array<() => void> = [];
    const read = async function* (): AsyncGenerator<BulkEntry<string>[]> {
      yield Array.from({ length: 40 }, (_, i) => ({
        row: { line: i + 2, group: "", key: `k${i}`, label: `k${i}`, json: toJson(`k${i}`) },
      }));
    };
    // No ledger writes (dry run): a chunk goes out as soon as the engine lets it, with no disk in between.
    const run = runBulk<string>({
      kind: "test",
      read,
      target: () => ({ baseUrl: "http://x", key: "k" }),
      ledgerDir: tmp.file("ledgers"),
      dryRun: true,
      chunkSize: 2,
      maxChunk: 10,
      concurrency: 8,
      skipInvalid: false,
      watchRateLimits: (listener) => {
        rateLimited = listener;
        return () => {
          rateLimited = undefined;
        };
      },
      onNotice: (message) => notices.push(message),
      send: () =>
        new Promise((resolve) => {
          started++;
          inFlight++;
          if (notices.length > 0) peakAfter = Math.max(peakAfter, inFlight);
          answer.push(() => {
            inFlight--;
            resolve(undefined);
          });
        }),
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
    const answerOne = async () => {
      answer.shift()!();
      await settle();
    };
    // The check pass and the ledger's opening go through the disk first: wait for the first eight however
    // long that takes on a busy machine (after that, a chunk goes out without any I/O: a dry run).
    await vi.waitFor(() => expect(started).toBe(8), { timeout: 120_000, interval: 5 });
    await settle();
    expect(started).toBe(8);

    // The client met a 429 on one of these eight: the limit halves.
    rateLimited!(Date.now() - 1);
    expect(notices).toEqual(["The service is rate-limiting (HTTP 429): 4 requests at once from now on"]);
    for (let i = 0; i < 3; i++) await answerOne();
    expect(started).toBe(8); // 5 in flight, limit 4: nothing new goes out
    await answerOne(); // 4 answered in a row: the limit grows to 5, and one more chunk goes out
    expect(started).toBe(9);

    while (answer.length > 0) await answerOne();
    const result = await run;
    expect(result).toMatchObject({ sent: 40, failed: 0, chunks: { total: 20, succeeded: 20 } });
    expect(peakAfter).toBeGreaterThan(4); // it sped up again…
    expect(peakAfter).toBeLessThan(8); // …without going back to 8 within these 20 chunks
    expect(rateLimited).toBeUndefined();
  });
});

describe("invite bulk against a rate-limiting service", () => {
  it("slows down on 429 and completes: no failed chunk, every e-mail invited once, 429s retried", async () => {
    const file = tmp.file("rate-limited.csv");
    writeCandidates(file, 8000, 2_000_000);
    // Ten 429s in a row: with 4 requests in flight and 4 tries each, a run that did not slow down would
    // still get through here (the client retries); the point is what it does about it and what it costs.
    env.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "status",
      status: 429,
      headers: { "retry-after": "0" },
      body: '{"message":"Too many requests"}',
      times: 10,
    });
    const mark = env.sandbox.requests.length;
    const run = await env.run(["invite", "bulk", file, "--test", "1002", "--chunk-size", "500", "--json"]);
    expect(run.code).toBe(0);
    expect(run.json<BulkResult>()).toMatchObject({
      sent: 8000,
      failed: 0,
      uncertain: 0,
      chunks: { total: 16, succeeded: 16, failed: 0, uncertain: 0 },
    });
    const requests = bulkRequests(env.sandbox, mark);
    expect(requests.filter((r) => r.status === 429)).toHaveLength(10);
    expect(requests).toHaveLength(16 + 10);
    expect(expectEachOnce(invitedCounts(env.sandbox, mark), 8000, 2_000_000)).toEqual([]);
    expect(run.stderr).toMatch(/HTTP 429 from POST .* retrying in 0 ms/);
    expect(run.stderr).toMatch(/rate-limiting \(HTTP 429\): [12] requests? at once from now on/);
    env.sandbox.faults.clear();
  });
});
