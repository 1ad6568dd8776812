/**
 * The ledger cannot be written in the middle of a run (a failing disk): the run stops at once with exit 1,
 * "Cannot write the ledger <path>: …" and what to do, and a rerun once the disk is mended sends every row the
 * service has not had, so each e-mail reaches it exactly once. Through `main(argv)` against the sandbox: the
 * fault is node:fs's writeSync (the one call the ledger writes its records with) failing for the one write that
 * carries a chosen record, having written nothing or (`landed`) all of it but its last byte. Records of one turn of the event loop share a write (ledger.ts):
 * with one request at a time, a chunk's answer ("ok") shares it with the next chunk's "send".
 */
import { existsSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { useScenarios } from "../helpers/cli.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

/** When set, the next writeSync whose bytes match fails (once): having written nothing, or all but its last byte. */
const fault = vi.hoisted(() => ({ record: undefined as RegExp | undefined, landed: false, hit: false }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    const record = fault.record;
    if (record && data instanceof Uint8Array && record.test(Buffer.from(data).toString("utf8"))) {
      fault.record = undefined;
      fault.hit = true;
      if (fault.landed) {
        const [offset = 0, length = data.length - offset, position] = rest as Array<number | undefined>;
        actual.writeSync(fd, data, offset, length - 1, position);
      }
      throw Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });
    }
    return (actual.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof actual.writeSync;
  return { ...actual, default: { ...actual, writeSync }, writeSync };
});

const t = useScenarios();

const ROWS = 5000;
const EIO = "EIO: i/o error, write";
const HINT = "hint: Check the disk space and permissions of ASSESS_CONFIG_DIR; rerun to resume.";

/** This process's descriptors open on `path` (Linux's /proc; none seen elsewhere). */
function openDescriptorsOf(path: string): string[] {
  if (!existsSync("/proc/self/fd")) return [];
  const real = realpathSync(path);
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === real;
    } catch {
      return false;
    }
  });
}

/** A scenario with ROWS candidates, bulk invites held 100 ms each (so the next chunk is formed while one is out). */
function scenario(from: number) {
  const { cwd, env } = t.scenario();
  const file = join(cwd, "candidates.csv");
  writeCandidates(file, ROWS, from);
  t.sandbox.faults.add({
    method: "POST",
    path: "/v3/tests/*/invite/bulk",
    kind: "latency",
    delayMs: 100,
    times: Number.POSITIVE_INFINITY,
  });
  const invite = (testId: string) =>
    t.run(["invite", "bulk", file, "--test", testId, "--concurrency", "1", "--json"], { env });
  const ledger = () => {
    const dir = join(cwd, ".config", "ledgers");
    return readdirSync(dir)
      .filter((name) => name.endsWith(".ndjson"))
      .map((name) => join(dir, name));
  };
  return { invite, ledger, mark: t.sandbox.requests.length };
}

describe("a ledger record that cannot be written stops the run; the rerun sends each row once", () => {
  it("at the start of a chunk (its send, with the answer before it): that chunk never goes out; the rerun sends it and the rest", async () => {
    const { invite, ledger, mark } = scenario(9_100_000);
    fault.hit = false;
    // The third chunk's "send" (seq 2), in one write with the second chunk's answer.
    fault.record = /"t":"send","c":"[0-9a-f]+-2"/;
    const run = await invite("1001");
    expect(fault.hit).toBe(true);
    const [path] = ledger();
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`error: Cannot write the ledger ${path}: ${EIO}`);
    expect(run.stderr).toContain(HINT);
    expect(run.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(/);
    // The two chunks before it went out; nothing from it on did.
    expect(bulkRequests(t.sandbox, mark)).toHaveLength(2);
    expect(run.json<BulkResult>()).toMatchObject({ rows: ROWS, sent: 2000, unsent: 3000 });

    // The second chunk's answer never reached the ledger: uncertain, listed, not resent (exit 3).
    const rerun = await invite("1001");
    expect(rerun.code, rerun.stderr).toBe(3);
    const summary = rerun.json<BulkResult>();
    expect(summary).toMatchObject({ rows: ROWS, alreadyDone: 1000, uncertain: 1000, sent: 3000 });
    expect(summary.uncertainRows[0]).toMatchObject({ line: 1002 });
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, 9_100_000)).toEqual([]);
  });

  it("at the start of a chunk, the failed write having landed but for its last byte: the rerun knows that chunk never went out and sends it", async () => {
    const { invite, ledger, mark } = scenario(9_400_000);
    fault.hit = false;
    fault.landed = true;
    // Its records read back whole (the next write starts on a line of its own), the third chunk's "send" too.
    fault.record = /"t":"send","c":"[0-9a-f]+-2"/;
    const run = await invite("1004").finally(() => {
      fault.landed = false;
    });
    expect(fault.hit).toBe(true);
    const [path] = ledger();
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`error: Cannot write the ledger ${path}: ${EIO}`);
    expect(bulkRequests(t.sandbox, mark)).toHaveLength(2);

    // The second chunk's answer landed; the third chunk's "send" did too, but its request never went out.
    const rerun = await invite("1004");
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({
      rows: ROWS,
      alreadyDone: 2000,
      uncertain: 0,
      sent: 3000,
    });
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, 9_400_000)).toEqual([]);
  });

  it("at the end of a chunk (the last one's answer): the rerun holds that chunk uncertain and sends nothing again", async () => {
    const { invite, ledger, mark } = scenario(9_200_000);
    fault.hit = false;
    // The fifth and last chunk's answer (seq 4): no other record shares its write.
    fault.record = /"t":"ok","c":"[0-9a-f]+-4"/;
    const run = await invite("1002");
    expect(fault.hit).toBe(true);
    const [path] = ledger();
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`error: Cannot write the ledger ${path}: ${EIO}`);
    expect(run.stderr).toContain(HINT);
    expect(bulkRequests(t.sandbox, mark)).toHaveLength(5);

    const rerun = await invite("1002");
    expect(rerun.code, rerun.stderr).toBe(3);
    const summary = rerun.json<BulkResult>();
    expect(summary).toMatchObject({ rows: ROWS, alreadyDone: 4000, uncertain: 1000, sent: 0 });
    expect(summary.uncertainRows[0]).toMatchObject({ line: 4002 });
    expect(bulkRequests(t.sandbox, mark)).toHaveLength(5);
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, 9_200_000)).toEqual([]);
  });

  it("its first record (a new ledger's header): nothing is sent; the rerun sends every row", async () => {
    const { invite, ledger, mark } = scenario(9_300_000);
    fault.hit = false;
    fault.record = /"ledger":1,"kind":"invite"/;
    const run = await invite("1003");
    expect(fault.hit).toBe(true);
    const [path] = ledger();
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`error: Cannot write the ledger ${path}: ${EIO}`);
    expect(run.stderr).toContain(HINT);
    expect(run.stderr).not.toMatch(/looks like a bug/);
    expect(bulkRequests(t.sandbox, mark)).toEqual([]);
    // The run was in this process (as in `assess mcp serve`): it left no descriptor of the ledger open.
    expect(openDescriptorsOf(path!)).toEqual([]);

    const rerun = await invite("1003");
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({ rows: ROWS, alreadyDone: 0, sent: ROWS });
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, 9_300_000)).toEqual([]);
  });
});
