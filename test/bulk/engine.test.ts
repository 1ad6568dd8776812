/** The engine on its own, with a fake `send`: concurrency, order, groups, dedupe, classification. */
import { afterAll, describe, expect, it } from "vitest";
import { toJson } from "../../src/api/json.js";
import type { BulkJob } from "../../src/bulk/engine/run.js";
import { runBulk } from "../../src/bulk/engine/run.js";
import { bulkExitCode } from "../../src/bulk/engine/summary.js";
import type { BulkEntry } from "../../src/bulk/engine/types.js";
import { ApiError, AuthError, UncertainError } from "../../src/errors.js";
import { sleep, tempDir } from "../helpers/cli.js";

const tmp = tempDir("assess-engine-");
afterAll(() => tmp.cleanup());
let dirs = 0;

function rows(n: number, group = (_i: number) => "1"): () => AsyncIterable<BulkEntry<string>[]> {
  return async function* () {
    const batch: BulkEntry<string>[] = [];
    for (let i = 0; i < n; i++) {
      batch.push({
        row: { line: i + 2, group: group(i), key: `k${i}`, label: `k${i}`, json: toJson(`k${i}`) },
      });
      if (batch.length === 7) yield batch.splice(0);
    }
    if (batch.length > 0) yield batch;
  };
}

function job(overrides: Partial<BulkJob<string>>): BulkJob<string> {
  return {
    kind: "test",
    read: rows(10),
    target: (group) => ({ baseUrl: "http://x", key: "k", testId: group }),
    ledgerDir: tmp.file(`l${dirs++}`),
    chunkSize: 3,
    maxChunk: 10,
    concurrency: 2,
    skipInvalid: false,
    send: async () => undefined,
    ...overrides,
  };
}

describe("runBulk", () => {
  it("keeps at most `concurrency` requests in flight and never mixes groups in a chunk", async () => {
    let inFlight = 0;
    let peak = 0;
    const chunks: Array<{ group: string; items: string[] }> = [];
    const result = await runBulk(
      job({
        read: rows(100, (i) => String(i % 3)),
        chunkSize: 4,
        concurrency: 3,
        send: async (group, items) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await sleep(Math.random() * 5);
          chunks.push({ group, items: items.map((row) => row.label) });
          inFlight--;
          return undefined;
        },
      }),
    );
    expect(peak).toBe(3);
    expect(result).toMatchObject({ rows: 100, sent: 100, chunks: { total: 27, succeeded: 27 } });
    for (const c of chunks)
      for (const item of c.items) expect(String(Number(item.slice(1)) % 3)).toBe(c.group);
  });

  it("reports failures in input order whatever order the answers come in", async () => {
    const result = await runBulk(
      job({
        read: rows(30),
        concurrency: 4,
        send: async (_g, items) => {
          await sleep(30 - Number(items[0]!.label.slice(1)));
          return { failed: [{ index: 0, error: "nope" }] };
        },
      }),
    );
    expect(result.failures.map((f) => f.line)).toEqual([2, 5, 8, 11, 14, 17, 20, 23, 26, 29]);
    expect(bulkExitCode(result)).toBe(3);
  });

  it("classifies errors: uncertain, refused, and a fatal one that stops the run", async () => {
    let calls = 0;
    const run = runBulk(
      job({
        read: rows(30),
        concurrency: 1,
        send: async () => {
          calls++;
          if (calls === 1)
            throw new UncertainError("POST", "http://x/bulk", "connection reset before an answer came");
          if (calls === 2) throw new ApiError(400, ["bad"]);
          if (calls === 3) throw new AuthError("Access denied", { status: 401 });
          return undefined;
        },
      }),
    );
    const error = (await run.catch((e: unknown) => e)) as AuthError & {
      bulk: import("../../src/bulk/engine/summary.js").BulkResult;
    };
    expect(error).toBeInstanceOf(AuthError);
    expect(calls).toBe(3);
    // Sending stopped with the run, counting did not: rows is the input's, and what was never sent is unsent.
    expect(error.bulk).toMatchObject({
      rows: 30,
      // Every row in one count: the uncertain chunk's rows are not also sent.
      sent: 6,
      uncertain: 3,
      failed: 6,
      unsent: 21,
      chunks: { total: 3, uncertain: 1, failed: 2 },
    });
  });

  it("reads a list of batches as it reads a stream of them", async () => {
    const batches: BulkEntry<string>[][] = [];
    for await (const batch of rows(10)()) batches.push(batch);
    const sent: string[] = [];
    const result = await runBulk(
      job({
        read: () => batches,
        send: async (_g, items) => void sent.push(...items.map((row) => row.label)),
      }),
    );
    expect(result.sent).toBe(10);
    expect(sent.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
  });

  it("refuses a chunk size above the limit and an input without rows", async () => {
    await expect(runBulk(job({ chunkSize: 11 }))).rejects.toThrow(
      /--chunk-size must be a whole number from 1 to 10/,
    );
    await expect(runBulk(job({ read: rows(0) }))).rejects.toThrow(/no data rows/);
    await expect(runBulk(job({ read: rows(0), skipInvalid: true }))).rejects.toThrow(/no data rows/);
  });

  it("lists the first 20 invalid rows and a count, and sends nothing", async () => {
    const sent: string[][] = [];
    // Rows already in memory are one list of batches: no generator around them.
    const read = () => [
      Array.from(
        { length: 50 },
        (_, i): BulkEntry<string> =>
          i % 2
            ? { invalid: { line: i + 2, error: "bad" } }
            : { row: { line: i + 2, group: "", key: `k${i}`, label: "", json: toJson("") } },
      ),
    ];
    const error = (await runBulk(
      job({ read, send: async (_g, items) => void sent.push(items.map((row) => row.label)) }),
    ).catch((e: unknown) => e)) as Error & {
      messages: string[];
    };
    expect(error.message).toMatch(/^25 of 50 rows are invalid; nothing was sent/);
    expect(error.messages).toHaveLength(21);
    expect(error.messages.at(-1)).toBe("… and 5 more");
    expect(sent).toEqual([]);
  });
});
