/**
 * Something other than a file in a ledger's place (a folder, a FIFO): every way of running the command stops
 * with exit 2 naming the path, sends nothing and leaves the thing as it was. Through `main(argv)` against the
 * sandbox; the ledger's path is the one a first run reports.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { useScenarios } from "../helpers/cli.js";
import { bulkRequests, isUpsert, writeCandidates } from "./helpers.js";

const t = useScenarios();

/** A scenario whose first run (5 rows) is done: its ledger's path, and an input with 5 rows more. */
async function ledgerOfFirstRun(testId: string, from: number) {
  const { cwd, env } = t.scenario();
  const file = join(cwd, "candidates.csv");
  writeCandidates(file, 5, from);
  const first = await t.run(["invite", "bulk", file, "--test", testId, "--json"], { env });
  expect(first.code, first.stderr).toBe(0);
  const [ledger] = first.json<BulkResult>().ledgers;
  writeCandidates(file, 10, from);
  const invite = (...more: string[]) =>
    t.run(["invite", "bulk", file, "--test", testId, "--json", ...more], { env });
  return { ledger: ledger!, invite };
}

describe("a folder or a FIFO in the ledger's place", () => {
  it("a folder: exit 2 naming the ledger, nothing sent, with or without --restart, --skip-invalid or --dry-run", async () => {
    const { ledger, invite } = await ledgerOfFirstRun("1001", 8_100_000);
    rmSync(ledger);
    mkdirSync(ledger);
    const mark = t.sandbox.requests.length;

    for (const more of [[], ["--restart"], ["--skip-invalid"], ["--dry-run"], ["--restart", "--dry-run"]]) {
      const r = await invite(...more);
      expect(r.code, `${more.join(" ")}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(
        `error: The ledger ${ledger} is not a file; assess reads and writes ledgers only as files of their own`,
      );
      expect(r.stderr).toMatch(/nothing was sent/);
      expect(r.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(|node:internal/);
      expect(r.stdout).toBe("");
    }
    expect(bulkRequests(t.sandbox, mark)).toEqual([]);
    expect(statSync(ledger).isDirectory()).toBe(true);
    expect(readdirSync(ledger)).toEqual([]);
    // No lock is left behind: once the folder is gone, the run resumes from nothing (all 10 rows sent).
    rmSync(ledger, { recursive: true });
    const after = await invite();
    expect(after.code, after.stderr).toBe(0);
    expect(after.json<BulkResult>()).toMatchObject({ rows: 10, sent: 10 });
  });

  it("employees upsert, a folder: exit 2 naming the ledger, nothing sent, with --restart and with --restart --dry-run", async () => {
    const { cwd, env } = t.scenario();
    const file = join(cwd, "staff.csv");
    const staff = (n: number) =>
      writeFileSync(
        file,
        `email,firstName,lastName\n${Array.from({ length: n }, (_, i) => `staff${i}@ledger.example,Ann,Lee${i}`).join("\n")}\n`,
      );
    staff(3);
    const upsert = (...more: string[]) => t.run(["employees", "upsert", file, "--json", ...more], { env });
    const first = await upsert();
    expect(first.code, first.stderr).toBe(0);
    const [ledger] = first.json<BulkResult>().ledgers;
    staff(6);
    rmSync(ledger!);
    mkdirSync(ledger!);
    const mark = t.sandbox.requests.length;

    for (const more of [["--restart"], ["--restart", "--dry-run"]]) {
      const r = await upsert(...more);
      expect(r.code, `${more.join(" ")}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`error: The ledger ${ledger} is not a file`);
      expect(r.stderr).toMatch(/nothing was sent/);
      expect(r.stderr).not.toMatch(/would send/);
      expect(r.stdout).toBe("");
    }
    expect(t.sandbox.requests.slice(mark).filter(isUpsert)).toEqual([]);
    expect(statSync(ledger!).isDirectory()).toBe(true);
  });

  it("a FIFO: exit 2 naming the ledger, at once (it is never waited on), nothing sent", async () => {
    const { ledger, invite } = await ledgerOfFirstRun("1002", 8_200_000);
    rmSync(ledger);
    execFileSync("mkfifo", [ledger]);
    const mark = t.sandbox.requests.length;

    for (const more of [[], ["--skip-invalid"], ["--dry-run"]]) {
      const r = await invite(...more);
      expect(r.code, `${more.join(" ")}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`error: The ledger ${ledger} is not a file`);
      expect(r.stderr).toMatch(/nothing was sent/);
    }
    expect(bulkRequests(t.sandbox, mark)).toEqual([]);
    expect(statSync(ledger).isFIFO()).toBe(true);
  });

  it("a folder in the lock's place (an old one): exit 1, 'Cannot lock the ledger', nothing sent, the folder left", async () => {
    const { ledger, invite } = await ledgerOfFirstRun("1003", 8_300_000);
    const lock = `${ledger}.lock`;
    mkdirSync(lock);
    // Old enough to be no lock being written this instant: the run tries to take it over, and cannot.
    utimesSync(lock, new Date(0), new Date(0));
    const mark = t.sandbox.requests.length;
    const r = await invite();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`error: Cannot lock the ledger ${ledger}: `);
    expect(r.stderr).toContain(`hint: Check ${lock}`);
    expect(r.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(|node:internal/);
    expect(bulkRequests(t.sandbox, mark)).toEqual([]);
    expect(statSync(lock).isDirectory()).toBe(true);
  });
});
