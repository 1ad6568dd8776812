/**
 * The spool of checked rows (src/bulk/storage/spool.ts): what the validate-first pass writes is what the sending pass
 * reads back, whatever the row holds, and the file is gone as soon as it is opened.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { toJson } from "../../src/api/json.js";
import { runBulk } from "../../src/bulk/engine/run.js";
import type { BulkEntry, BulkRow, ReadyRow } from "../../src/bulk/engine/types.js";
import { hashHalves, hashKey } from "../../src/bulk/storage/keyset.js";
import { closeSpool, openSpool, replay, SpoolWriter, sourceOf } from "../../src/bulk/storage/spool.js";
import { tempDir, useTestEnv } from "../helpers/cli.js";
import { isBulkInvite, writeCandidates } from "./helpers.js";

const tmp = tempDir("assess-spool-");
afterAll(() => tmp.cleanup());

/** The rows written and replayed, as `comparable` gives them (sources are read back while the spool is open). */
async function roundTrip(rows: BulkRow<unknown>[], lineOffset = 0) {
  const spool = openSpool(tmp.file("spool"));
  try {
    const writer = new SpoolWriter(spool);
    for (const row of rows) writer.add(row);
    writer.flush();
    const back: ReturnType<typeof comparable>[] = [];
    for await (const batch of replay(spool.fd, lineOffset))
      back.push(...batch.map((entry) => comparable(entry as ReadyRow<unknown>)));
    return back;
  } finally {
    closeSpool(spool);
  }
}

/** What a replayed row gives back: its item's JSON as text, its source read back as the rejects file will. */
function comparable(row: ReadyRow<unknown>) {
  const { line, group, label, hi, lo, dedupe, dhi, dlo } = row;
  const json = Buffer.from(row.bytes.subarray(row.start, row.end)).toString();
  return { line, group, label, json, hi, lo, dedupe, dhi, dlo, source: sourceOf(row) };
}

/** What the row written must come back as: its keys hashed, its lines shifted. */
function expected(row: BulkRow<unknown>, lineOffset: number): ReturnType<typeof comparable> {
  hashKey(row.key);
  const { hi, lo } = hashHalves;
  const dedupe = row.dedupeKey !== undefined;
  if (dedupe) hashKey(row.dedupeKey!);
  const { group, label, json, source } = row;
  return {
    line: row.line + lineOffset,
    group,
    label,
    json,
    hi,
    lo,
    dedupe,
    dhi: dedupe ? hashHalves.hi : 0,
    dlo: dedupe ? hashHalves.lo : 0,
    source,
  };
}

describe("the spool", () => {
  it("gives back every row as written: any text, any source, dedupe keys, lines shifted (property)", async () => {
    const text = fc.string({ unit: "binary", maxLength: 40 });
    const row = fc.record({
      line: fc.integer({ min: 1, max: 2 ** 31 }),
      group: fc.oneof(fc.constant(""), fc.stringMatching(/^\d{1,15}$/)),
      key: text,
      dedupeKey: fc.option(text, { nil: undefined }),
      label: text,
      item: fc.dictionary(text, text, { maxKeys: 4 }),
      // CSV fields (some holding NUL, which the spool writes as JSON instead), a JSON item, or nothing.
      source: fc.oneof(
        fc.array(text, { maxLength: 6 }),
        fc.dictionary(text, fc.oneof(text, fc.integer()), { maxKeys: 3 }),
        fc.constant(undefined),
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 60 }), fc.nat(1000), async (drawn, offset) => {
        const rows: BulkRow<unknown>[] = drawn.map(({ item, dedupeKey, ...r }) => ({
          ...r,
          ...(dedupeKey !== undefined ? { dedupeKey } : {}),
          json: toJson(item),
        }));
        const back = await roundTrip(rows, offset);
        expect(back).toEqual(rows.map((r) => expected(r, offset)));
      }),
      { numRuns: 60 },
    );
  });

  it("reads a row larger than its read buffer and than its write buffer", async () => {
    const huge = "é".repeat(700_000); // 1.4 MB of UTF-8: more than either buffer
    const rows: BulkRow<unknown>[] = [
      { line: 2, group: "", key: "a", label: "a", json: toJson({ a: 1 }), source: ["a"] },
      { line: 3, group: "", key: "b", label: "b", json: toJson({ name: huge }), source: [huge, "x\u0000y"] },
      { line: 4, group: "", key: "c", label: "c", json: toJson({ c: 3 }), source: ["c"] },
    ];
    const back = await roundTrip(rows);
    expect(back.map((r) => r.line)).toEqual([2, 3, 4]);
    expect(JSON.parse(back[1]!.json).name).toBe(huge);
    expect(back[1]!.source).toEqual([huge, "x\u0000y"]);
  });

  it("leaves no file behind: it has no name from the moment it is opened", () => {
    const dir = tmp.file("spool-names");
    const spool = openSpool(dir);
    try {
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      closeSpool(spool);
    }
  });
});

describe("a bulk run with its spool", () => {
  it("reads the input once: the sending pass sends the rows the check read, not a second reading", async () => {
    let reads = 0;
    const read = async function* (): AsyncGenerator<BulkEntry<string>[]> {
      reads++;
      // A file edited between two readings would differ: this one changes on every read.
      yield Array.from({ length: 25 }, (_, i) => ({
        row: { line: i + 2, group: "", key: `k${i}`, label: `read ${reads}`, json: toJson(`k${i}`) },
      }));
    };
    const ledgerDir = tmp.file("ledgers-once");
    const sent: string[] = [];
    let filesWhileSending: string[] = [];
    const result = await runBulk<string>({
      kind: "test",
      read,
      target: () => ({ baseUrl: "http://x", key: "k" }),
      ledgerDir,
      chunkSize: 10,
      maxChunk: 10,
      concurrency: 2,
      skipInvalid: false,
      send: async (_group, rows) => {
        filesWhileSending = readdirSync(ledgerDir);
        sent.push(
          ...rows.map((row) => `${Buffer.from(row.bytes.subarray(row.start, row.end))} ${row.label}`),
        );
        return undefined;
      },
    });
    expect(reads).toBe(1);
    expect(result).toMatchObject({ rows: 25, sent: 25, chunks: { total: 3 } });
    expect(sent).toEqual(Array.from({ length: 25 }, (_, i) => `"k${i}" read 1`));
    // Only the ledger and its lock: the spool has no name, during the run or after it.
    expect(filesWhileSending.filter((name) => name.startsWith("spool-"))).toEqual([]);
    expect(readdirSync(ledgerDir).filter((name) => name.startsWith("spool-"))).toEqual([]);
  });
});

describe("a spool that cannot be written", () => {
  const env = useTestEnv();
  it("says where and what to do, exits 1, and sends nothing", async () => {
    const configDir = mkdtempSync(join(tmp.dir, "config-"));
    writeFileSync(join(configDir, "ledgers"), "a file where the folder of the ledgers should be");
    const file = tmp.file("unspoolable.csv");
    writeCandidates(file, 50);
    const run = await env.run(["invite", "bulk", file, "--test", "1001"], {
      env: { ASSESS_CONFIG_DIR: configDir },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Cannot keep the checked rows in .*ledgers: E[A-Z]+; nothing was sent/);
    expect(run.stderr).toContain("ASSESS_CONFIG_DIR");
    expect(env.sandbox.requests.filter(isBulkInvite)).toEqual([]);
  });

  it("names its folder when a write fails on the way (a full disk, say)", () => {
    const dir = tmp.file("failing-spool");
    const spool = openSpool(dir);
    // Every write now fails, as on a full disk: the spool's descriptor is one open for reading. Not a closed
    // number: tests run as threads of one process, and another file's next open may be given it (the writes
    // would land in that file).
    closeSync(spool.fd);
    spool.fd = openSync(dir, "r");
    try {
      const writer = new SpoolWriter(spool);
      writer.add({ line: 2, group: "", key: "k", label: "k", json: toJson("k") });
      expect(() => writer.flush()).toThrow(`Cannot keep the checked rows in ${dir}: EBADF; nothing was sent`);
    } finally {
      closeSync(spool.fd);
    }
  });
});
