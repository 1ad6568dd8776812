/**
 * Crash safety. The seeded SIGKILL/SIGINT loop lives in bench/crash-loop.mjs (`npm run bench:crash`, 20 runs);
 * here it runs 3 seeded runs. Then torn writes: a ledger cut at every byte (and padded with the zeros a crashed
 * file system may leave) is read back as exactly what its complete records say, and a rerun after a tear sends
 * nothing twice. test/bulk/kill.test.ts covers one SIGKILL and one SIGINT end to end.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChunkOutcome, keyFingerprint, Ledger } from "../../src/bulk/engine/ledger.js";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { DONE, UNCERTAIN } from "../../src/bulk/engine/types.js";
import type { KeySet } from "../../src/bulk/speedups/keyset.js";
import {
  bulkRequests,
  confirmChunk,
  flagsOf,
  hashesOf,
  invitedCounts,
  ROOT,
  writeCandidates,
} from "../bulk/helpers.js";
import { tempDir, useTestEnv } from "../helpers/cli.js";
import { lostAndDuplicated, printTable, record } from "./table.js";

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir("assess-trust-crash-");
});
afterAll(() => {
  printTable("Crash safety");
  tmp.cleanup();
});

const SEED = 20_261_121;

describe("SIGKILL / SIGINT at seeded random points of a 25,000-row invite (bench/crash-loop.mjs)", () => {
  it(`3 runs, seed ${SEED}: every e-mail reaches the service exactly once; SIGINT exits 130 with the ledger flushed`, async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bench", "crash-loop.mjs"), "--runs", "3", "--seed", String(SEED), "--json"],
      { env: { PATH: process.env.PATH }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    console.log(stderr);
    const totals = JSON.parse(stdout) as {
      runs: number;
      rows: number;
      kills: number;
      landed: number;
      sigint130: number;
      uncertain: number;
      held: number;
      duplicates: number;
      lost: number;
      anomalies: string[];
    };
    expect(totals.anomalies).toEqual([]);
    expect(code).toBe(0);
    expect(totals).toMatchObject({ runs: 3, rows: 75_000, duplicates: 0, lost: 0 });
    expect(totals.landed).toBeGreaterThanOrEqual(3);
    expect(totals.sigint130).toBeGreaterThanOrEqual(1);
    record({
      input: `${totals.kills} SIGKILL/SIGINT at seeded points (seed ${SEED}) of 3 × 25,000-row invites, rerun each time`,
      outcome:
        `${totals.landed} landed mid-run; ${totals.sigint130} SIGINT → exit 130, ledger flushed; ` +
        `${totals.uncertain} rows reported uncertain, ${totals.held} of them had not arrived → sent once after checking`,
      lost: totals.lost,
      duplicated: totals.duplicates,
    });
  }, 180_000);
});

describe("torn ledger writes", () => {
  const target = { baseUrl: "http://127.0.0.1:1/api", key: keyFingerprint("sbx-torn"), testId: 1001 };
  /** Each chunk's fate, in the order written; the last one's process died while its request was out. */
  const chunks: Array<ChunkOutcome | undefined> = [
    { t: "ok" },
    { t: "ok", failed: [1] },
    { t: "fail", error: "HTTP 400" },
    { t: "uncertain", error: "reset" },
    { t: "ok" },
    undefined,
  ];
  const keysOf = (c: number) => [0, 1, 2].map((i) => `k${c}-${i}@example.com`);

  const stateOf = (set: KeySet, key: string) => flagsOf(set, key) & (DONE | UNCERTAIN);

  /**
   * What the complete records of a prefix say about each key. A record counts when its JSON is whole, with or
   * without its newline, and whatever zeros follow it (space the ledger reserved, or a write cut short).
   */
  function expected(
    records: Array<{ end: number; record: { t: string; c: string; failed?: number[] } }>,
    cut: number,
  ) {
    const complete = records.filter((r) => r.end <= cut).map((r) => r.record);
    const flags = new Map<string, number>();
    chunks.forEach((_, c) => {
      const id = `r1-${c}`;
      const sent = complete.some((r) => r.t === "send" && r.c === id);
      const outcome = complete.find((r) => r.t !== "keys" && r.t !== "send" && r.c === id);
      keysOf(c).forEach((key, i) => {
        let f = 0;
        // A send line that is not complete: the request never went out (it waits for the line to be on disk).
        if (sent && !outcome) f = UNCERTAIN;
        else if (sent && outcome?.t === "uncertain") f = UNCERTAIN;
        else if (sent && outcome?.t === "ok" && !(outcome.failed ?? []).includes(i)) f = DONE;
        flags.set(key, f);
      });
    });
    return flags;
  }

  it("cut at every byte, with and without zero padding: read back as its complete records say; appending goes on cleanly", async () => {
    const dir = tmp.file("torn");
    const writer = await Ledger.open(dir, "invite", target);
    for (const [c, outcome] of chunks.entries()) {
      await writer.prepare(`r1-${c}`, hashesOf(keysOf(c)), [c * 3 + 2, c * 3 + 4]);
      await writer.begin(`r1-${c}`);
      if (outcome) await writer.end(`r1-${c}`, outcome);
    }
    await writer.close();
    const full = readFileSync(writer.path);
    const records: Array<{ end: number; record: { t: string; c: string; failed?: number[] } }> = [];
    for (let start = 0, nl = full.indexOf(10); nl !== -1; start = nl + 1, nl = full.indexOf(10, start)) {
      records.push({ end: nl, record: JSON.parse(full.subarray(start, nl).toString("utf8")) });
    }

    let checked = 0;
    for (let cut = 0; cut <= full.length; cut++) {
      for (const padding of [0, 7]) {
        const bytes = Buffer.concat([full.subarray(0, cut), Buffer.alloc(padding)]);
        writeFileSync(writer.path, bytes);
        const reader = await Ledger.open(dir, "invite", target, { readOnly: true });
        const want = expected(records, cut);
        for (const [key, flags] of want)
          expect(stateOf(reader.keys, key), `cut ${cut}+${padding}: ${key}`).toBe(flags);
        checked++;
        // Every so often (and right inside the last line): a run resumes on the torn file and its records read back.
        if (cut % 97 === 0 || cut === full.length - 5) {
          const resumed = await Ledger.open(dir, "invite", target);
          await confirmChunk(resumed, "r2-0", ["new@example.com"], [99, 99]);
          await resumed.close();
          const again = await Ledger.open(dir, "invite", target, { readOnly: true });
          expect(stateOf(again.keys, "new@example.com")).toBe(DONE);
          for (const [key, flags] of want) expect(stateOf(again.keys, key)).toBe(flags);
        }
      }
    }
    expect(checked).toBe(2 * (full.length + 1));
  });

  describe("a rerun after a torn write (built CLI logic, in-process, against the sandbox)", () => {
    const env = useTestEnv();

    const ledgerOf = (configDir: string) => {
      const dir = join(configDir, "ledgers");
      const file = readdirSync(dir).find((f) => f.endsWith(".ndjson"));
      return join(dir, file!);
    };

    it("the last answer's record cut mid-line → that chunk is uncertain, listed, not resent", async () => {
      const configDir = tmp.file("torn-ok");
      mkdirSync(configDir);
      const file = tmp.file("torn-ok.csv");
      writeCandidates(file, 3000, 5_000_000);
      const emails = Array.from({ length: 3000 }, (_, i) => `cand${5_000_000 + i}@example.com`);
      const argv = ["invite", "bulk", file, "--test", "1001", "--concurrency", "1", "--json"];
      const mark = env.sandbox.requests.length;
      expect((await env.run(argv, { env: { ASSESS_CONFIG_DIR: configDir } })).code).toBe(0);
      const ledger = ledgerOf(configDir);
      const text = readFileSync(ledger, "utf8");
      // The process died while writing the last chunk's "ok": its first 10 bytes made it to disk.
      const lastLineStart = text.lastIndexOf("\n", text.length - 2) + 1;
      truncateSync(ledger, Buffer.byteLength(text.slice(0, lastLineStart + 10)));

      const mark2 = env.sandbox.requests.length;
      const rerun = await env.run(argv, { env: { ASSESS_CONFIG_DIR: configDir } });
      expect(rerun.code, rerun.stderr).toBe(3);
      expect(rerun.json<BulkResult>()).toMatchObject({ alreadyDone: 2000, uncertain: 1000, sent: 0 });
      expect(bulkRequests(env.sandbox, mark2)).toHaveLength(0);
      // The ledger goes on from a line of its own: the next run reads it the same way.
      const third = await env.run(argv, { env: { ASSESS_CONFIG_DIR: configDir } });
      expect(third.json<BulkResult>()).toMatchObject({ alreadyDone: 2000, uncertain: 1000, sent: 0 });
      const { lost, duplicated } = lostAndDuplicated(invitedCounts(env.sandbox, mark), emails);
      expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
      record({
        input: "ledger cut inside the last chunk's answer record (torn write)",
        outcome: "line skipped; chunk uncertain, listed, exit 3, not resent; later runs read the same",
        lost,
        duplicated,
      });
    });

    it("a torn request record at the end (the request never went out) → skipped; the rerun sends nothing twice", async () => {
      const configDir = tmp.file("torn-send");
      mkdirSync(configDir);
      const file = tmp.file("torn-send.csv");
      writeCandidates(file, 2000, 5_100_000);
      const emails = Array.from({ length: 2000 }, (_, i) => `cand${5_100_000 + i}@example.com`);
      const argv = ["invite", "bulk", file, "--test", "1001", "--json"];
      const mark = env.sandbox.requests.length;
      expect((await env.run(argv, { env: { ASSESS_CONFIG_DIR: configDir } })).code).toBe(0);
      const ledger = ledgerOf(configDir);
      writeFileSync(
        ledger,
        `${readFileSync(ledger, "utf8")}{"t":"send","c":"dead-0","n":1000,"lines":[2,1001],"h":"AAAA`,
      );
      const rerun = await env.run(argv, { env: { ASSESS_CONFIG_DIR: configDir } });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.json<BulkResult>()).toMatchObject({ alreadyDone: 2000, uncertain: 0, sent: 0 });
      const { lost, duplicated } = lostAndDuplicated(invitedCounts(env.sandbox, mark), emails);
      expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
      record({
        input: "ledger ending in a torn request record",
        outcome: "line skipped, exit 0, nothing resent",
        lost,
        duplicated,
      });
    });
  });
});
