/**
 * Crash safety. The seeded SIGKILL/SIGINT loop lives in bench/crash-loop.mjs (`npm run bench:crash`, 20 runs
 * of 25,000 rows); here it runs 3 seeded runs of 10,000 rows. Then torn writes: a ledger cut at every byte (and
 * padded with the zeros a crashed file system may leave) is read back as exactly what its complete records say
 * (test/trust/torn-ledger.ts), and a rerun after a tear sends nothing twice. test/bulk/kill.test.ts covers one SIGKILL and one SIGINT end to end.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { bulkRequests, invitedCounts, ROOT, writeCandidates } from "../bulk/helpers.js";
import { stopWhenTestEnds, tempDir, useTestEnv } from "../helpers/cli.js";
import { lostAndDuplicated, printTable, record } from "./table.js";
import { SHORT, tornLedger } from "./torn-ledger.js";

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir("assess-trust-crash-");
});
afterAll(() => {
  printTable("Crash safety");
  tmp.cleanup();
});

const SEED = 20_261_121;

describe("SIGKILL / SIGINT at seeded random points of a 10,000-row invite (bench/crash-loop.mjs)", () => {
  it(`3 runs, seed ${SEED}: every e-mail reaches the service exactly once; SIGINT exits 130 with the ledger flushed`, async () => {
    // In a process group of its own: the loop's CLI runs and sandbox stop with it if the test ends first.
    const child = stopWhenTestEnds(
      spawn(
        process.execPath,
        [
          join(ROOT, "bench", "crash-loop.mjs"),
          "--runs",
          "3",
          "--rows",
          "10000",
          "--seed",
          String(SEED),
          "--json",
        ],
        { env: { PATH: process.env.PATH }, stdio: ["ignore", "pipe", "pipe"], detached: true },
      ),
      { group: true },
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
    expect(totals).toMatchObject({ runs: 3, rows: 30_000, duplicates: 0, lost: 0 });
    expect(totals.landed).toBeGreaterThanOrEqual(3);
    expect(totals.sigint130).toBeGreaterThanOrEqual(1);
    record({
      input: `${totals.kills} SIGKILL/SIGINT at seeded points (seed ${SEED}) of 3 × 10,000-row invites, rerun each time`,
      outcome:
        `${totals.landed} landed mid-run; ${totals.sigint130} SIGINT → exit 130, ledger flushed; ` +
        `${totals.uncertain} rows reported uncertain, ${totals.held} of them had not arrived → sent once after checking`,
      lost: totals.lost,
      duplicated: totals.duplicates,
    });
  });
});

describe("torn ledger writes", () => {
  it("cut at every byte, with and without zero padding: read back as its complete records say; appending goes on cleanly", async () => {
    // A ledger of 4 chunks of 2 rows (one of each kind of record); `npm run bench:large -- --only torn`: 6 of 3.
    const dir = tmp.file("torn");
    const { bytes, checked } = await tornLedger(dir, { chunks: SHORT, keys: 2 }, (actual, expected, what) =>
      expect(actual, what).toBe(expected),
    );
    expect(bytes).toBeGreaterThan(300);
    expect(checked).toBe(2 * (bytes + 1));
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
