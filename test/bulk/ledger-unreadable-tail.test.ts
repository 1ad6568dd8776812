/**
 * A ledger whose end cannot be read when a run opens it to write (a failing disk): the run stops as for a ledger
 * that cannot be read ("Cannot read the ledger <path>: …", exit 2, nothing sent), and the
 * ledger is left exactly as it was, every earlier record kept, so the rerun sends nothing twice. Through
 * `main(argv)` against the sandbox: the fault is the read of a handle node:fs/promises opened read-write (how
 * the ledger finds where its records end), failing once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { useScenarios } from "../helpers/cli.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

/** When set, the next read of a handle opened read-write fails (once). */
const fault = vi.hoisted(() => ({ armed: false, hit: false }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const { constants } = await import("node:fs");
  const open = (async (...args: Parameters<typeof actual.open>) => {
    const handle = await actual.open(...args);
    const flags = args[1];
    if (typeof flags === "number" && (flags & constants.O_RDWR) !== 0 && fault.armed) {
      fault.armed = false;
      fault.hit = true;
      handle.read = (async () => {
        throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
      }) as typeof handle.read;
    }
    return handle;
  }) as typeof actual.open;
  return { ...actual, default: { ...actual, open }, open };
});

const t = useScenarios();
const ROWS = 3000;

describe("a ledger whose end cannot be read is left as it was", () => {
  it("the run stops before sending; the ledger keeps every record; the rerun sends only the rest, each once", async () => {
    const { cwd, env } = t.scenario();
    const first = join(cwd, "first.csv");
    const all = join(cwd, "all.csv");
    writeCandidates(first, 1000, 9_700_000);
    writeCandidates(all, ROWS, 9_700_000);
    const mark = t.sandbox.requests.length;
    const invite = (file: string) => t.run(["invite", "bulk", file, "--test", "1001", "--json"], { env });

    // The first 1,000 rows, sent and recorded.
    expect((await invite(first)).code).toBe(0);
    const dir = join(cwd, ".config", "ledgers");
    const [name] = readdirSync(dir).filter((n) => n.endsWith(".ndjson"));
    const ledger = join(dir, name!);
    const before = readFileSync(ledger);

    // The same ledger (the same test), its end unreadable: refused as an unreadable ledger is (exit 2), nothing
    // sent, the file as it was.
    fault.hit = false;
    fault.armed = true;
    const failed = await invite(all);
    expect(fault.hit).toBe(true);
    expect(failed.code, failed.stderr).toBe(2);
    expect(failed.stderr).toContain(`error: Cannot read the ledger ${ledger}: EIO: i/o error, read`);
    expect(failed.stderr).not.toContain("looks like a bug");
    expect(bulkRequests(t.sandbox, mark)).toHaveLength(1);
    expect(readFileSync(ledger).equals(before)).toBe(true);

    // The rerun knows the first 1,000 and sends the other 2,000: each e-mail reaches the sandbox once.
    const rerun = await invite(all);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({ rows: ROWS, alreadyDone: 1000, sent: 2000 });
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, 9_700_000)).toEqual([]);
  });
});
