import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { keyFingerprint, Ledger, ledgerPath } from "../../src/bulk/engine/ledger.js";
import { DONE, SEEN, UNCERTAIN } from "../../src/bulk/engine/types.js";
import { hashHalves, hashKey, KeySet } from "../../src/bulk/storage/keyset.js";
import { tempDir } from "../helpers/cli.js";
import { confirmChunk, flagsOf, hashesOf } from "./helpers.js";

const tmp = tempDir("assess-ledger-");
afterAll(() => tmp.cleanup());

describe("KeySet", () => {
  it("behaves like a Map of flags (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ maxLength: 6 }),
            fc.integer({ min: 0, max: 7 }),
            fc.integer({ min: 0, max: 7 }),
          ),
        ),
        (ops) => {
          const set = new KeySet(4);
          const model = new Map<string, number>();
          for (const [key, add, clear] of ops) {
            hashKey(key);
            const before = model.get(key) ?? 0;
            expect(set.update(hashHalves.hi, hashHalves.lo, add, clear)).toBe(before);
            if (before !== 0 || add !== 0) model.set(key, (before | add) & ~clear);
          }
          for (const [key, flags] of model) expect(flagsOf(set, key)).toBe(flags);
        },
      ),
    );
  });

  it("keeps a million distinct keys apart (61 bits of hash, no collision)", () => {
    const set = new KeySet();
    let collisions = 0;
    for (let i = 0; i < 1_000_000; i++) {
      hashKey(`candidate${i}@example.com`);
      if (set.update(hashHalves.hi, hashHalves.lo, SEEN) !== 0) collisions++;
    }
    expect(collisions).toBe(0);
    expect(set.size).toBe(1_000_000);
  });
});

describe("Ledger", () => {
  const target = { baseUrl: "http://127.0.0.1:1/api", key: keyFingerprint("sbx-secret-key"), testId: 1001 };

  it("folds sends and answers into DONE / UNCERTAIN; a torn last line is skipped", async () => {
    const dir = tmp.file("fold");
    const a = await Ledger.open(dir, "invite", target);
    await confirmChunk(a, "r1-0", ["a@x", "b@x"], [2, 3]);
    await a.prepare("r1-1", hashesOf(["c@x", "d@x"]), [4, 5]);
    await a.begin("r1-1");
    await a.end("r1-1", { t: "uncertain", error: "reset" });
    await a.prepare("r1-2", hashesOf(["e@x"]), [6, 6]);
    await a.begin("r1-2");
    await a.end("r1-2", { t: "fail", error: "HTTP 400" });
    await a.prepare("r1-3", hashesOf(["f@x", "g@x"]), [7, 8]);
    await a.begin("r1-3");
    await a.end("r1-3", { t: "ok", failed: [1] });
    await a.prepare("r1-4", hashesOf(["h@x"]), [9, 9]);
    await a.begin("r1-4"); // the process dies here
    await a.close();
    await appendFile(a.path, '{"t":"ok","c":"r1-4"'); // torn write: no newline, not JSON

    const b = await Ledger.open(dir, "invite", target);
    expect(b.skippedLines).toBe(1);
    expect(["a@x", "b@x", "c@x", "d@x", "e@x", "f@x", "g@x", "h@x"].map((k) => flagsOf(b.keys, k))).toEqual([
      DONE,
      DONE,
      UNCERTAIN,
      UNCERTAIN,
      0,
      DONE,
      0,
      UNCERTAIN,
    ]);
    // --retry-uncertain resends c; once confirmed it is DONE and no longer uncertain.
    await confirmChunk(b, "r2-0", ["c@x"], [4, 4]);
    await b.close();
    const c = await Ledger.open(dir, "invite", target);
    expect(flagsOf(c.keys, "c@x")).toBe(DONE);
    await c.close();
  });

  it("keys recorded for a chunk that never went out guard nothing; ledgers of the earlier format read the same", async () => {
    const dir = tmp.file("keys-only");
    const a = await Ledger.open(dir, "invite", target);
    await confirmChunk(a, "r1-0", ["sent@x"], [2, 2]);
    await a.prepare("r1-1", hashesOf(["waiting@x"]), [3, 3]); // the run stopped before this chunk went out
    await a.prepare("r1-2", hashesOf(["out@x"]), [4, 4]);
    await a.begin("r1-2"); // the process dies while this one is out
    await a.close();
    // A chunk written by the earlier version: its keys in the send record itself.
    const [hi, lo] = hashesOf(["old@x"]);
    const h = Buffer.alloc(8);
    h.writeUInt32LE(hi!, 0);
    h.writeUInt32LE(lo!, 4);
    await appendFile(
      a.path,
      `${JSON.stringify({ t: "send", c: "r0-0", n: 1, lines: [5, 5], h: h.toString("base64"), at: "x" })}\n`,
    );
    const b = await Ledger.open(dir, "invite", target, { readOnly: true });
    expect(["sent@x", "waiting@x", "out@x", "old@x"].map((k) => flagsOf(b.keys, k))).toEqual([
      DONE,
      0,
      UNCERTAIN,
      UNCERTAIN,
    ]);
  });

  it("never records a send whose keys it was not given", async () => {
    const dir = tmp.file("unprepared");
    const l = await Ledger.open(dir, "invite", target);
    await expect(l.begin("r1-0")).rejects.toThrow(/chunk r1-0 was not prepared/);
    await l.close();
    expect(readFileSync(l.path, "utf8")).not.toContain('"send"');
  });

  it("never stores the key or the e-mails; --restart starts over", async () => {
    const dir = tmp.file("private");
    const l = await Ledger.open(dir, "invite", target);
    await confirmChunk(l, "r-0", ["someone@example.com"], [2, 2]);
    await l.close();
    const text = readFileSync(l.path, "utf8");
    expect(text).not.toContain("sbx-secret-key");
    expect(text).not.toContain("someone@example.com");
    const fresh = await Ledger.open(dir, "invite", target, { restart: true });
    expect(fresh.keys.size).toBe(0);
    await fresh.close();
  });

  it("one run per ledger at a time; a lock left by a dead process is taken over", async () => {
    const dir = tmp.file("locks");
    const first = await Ledger.open(dir, "upsert", { baseUrl: "http://x", key: "k" });
    const lock = `${first.path}.lock`;
    writeFileSync(lock, "1"); // pid 1: alive, and not us
    await expect(Ledger.open(dir, "upsert", { baseUrl: "http://x", key: "k" })).rejects.toThrow(
      /Another assess run \(pid 1\)/,
    );
    writeFileSync(lock, "999999999"); // no such process
    const second = await Ledger.open(dir, "upsert", { baseUrl: "http://x", key: "k" });
    await second.close();
    await first.close();
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock"))).toEqual([]);
  });

  it("writes over zeros it reserved ahead; a crash that leaves them reads back and writes on; closing drops them", async () => {
    const dir = tmp.file("reserved");
    const a = await Ledger.open(dir, "upsert", { baseUrl: "http://x", key: "k" });
    // ~330 KB of records: several steps of reserved space, each zeroed while records go on being written.
    const keysOf = (c: number) => Array.from({ length: 100 }, (_, i) => `c${c}-${i}`);
    const chunks = Array.from({ length: 300 }, (_, c) => c);
    await Promise.all(
      chunks.map(async (c) => {
        await confirmChunk(a, `r1-${c}`, keysOf(c), [c * 100 + 2, c * 100 + 101]);
      }),
    );
    // What a SIGKILL would leave: the records, then zeros.
    const killed = readFileSync(a.path);
    const records = killed.subarray(0, killed.lastIndexOf(10) + 1);
    expect(killed.length).toBeGreaterThan(records.length);
    expect(killed.subarray(records.length).every((b) => b === 0)).toBe(true);
    expect(records.includes(0)).toBe(false);
    await a.close();
    expect(readFileSync(a.path).equals(records)).toBe(true);

    const crashed = tmp.file("reserved-crash");
    mkdirSync(crashed);
    const path = ledgerPath(crashed, "upsert", { baseUrl: "http://x", key: "k" });
    writeFileSync(path, killed);
    const b = await Ledger.open(crashed, "upsert", { baseUrl: "http://x", key: "k" });
    expect(b.skippedLines).toBe(0);
    expect(chunks.flatMap(keysOf).every((k) => flagsOf(b.keys, k) === DONE)).toBe(true);
    await confirmChunk(b, "r2-0", ["after@x"], [2, 2]);
    await b.close();
    const after = readFileSync(path);
    expect(after.includes(0)).toBe(false);
    expect(after.subarray(0, records.length).equals(records)).toBe(true);
    const c = await Ledger.open(crashed, "upsert", { baseUrl: "http://x", key: "k" }, { readOnly: true });
    expect(c.skippedLines).toBe(0);
    expect([...keysOf(299), "after@x"].map((k) => flagsOf(c.keys, k))).toEqual(Array(101).fill(DONE));
  });

  it("names one ledger per target: base URL, key fingerprint and test", () => {
    const base = ledgerPath("/d", "invite", target);
    expect(ledgerPath("/d", "invite", { ...target, testId: 1002 })).not.toBe(base);
    expect(ledgerPath("/d", "invite", { ...target, key: keyFingerprint("other") })).not.toBe(base);
    expect(ledgerPath("/d", "invite", { ...target, baseUrl: "http://127.0.0.1:2/api" })).not.toBe(base);
    expect(ledgerPath("/d", "invite", { ...target, baseUrl: `${target.baseUrl}/` })).toBe(base);
    expect(keyFingerprint("sbx-secret-key")).toMatch(/^[0-9a-f]{16}$/);
  });
});
