/**
 * What a test starts stops when the test ends (test/helpers/cli.ts): a test that times out leaves the runs it
 * awaited going, and one of them, still sending, once made the next test of its file count 89 requests that
 * were not its own. Here a test times out on purpose (`it.fails`) in the middle of a long bulk run, and the
 * next test finds the run stopped: the built CLI killed, an in-process run interrupted.
 */
import { describe, expect, it } from "vitest";
import { bulkRequests, writeCandidates } from "../bulk/helpers.js";
import { type BinResult, type RunResult, sleep, startBin, useTempDir, useTestEnv } from "../helpers/cli.js";

/** 200 requests answered 100 ms late each, 4 at a time: ~5 s of sending, far past the timeout below. */
const ROWS = 200_000;
const env = useTestEnv({ latencyMs: 100 });
const tmp = useTempDir("assess-test-ends-");

/** Resolves with what `promise` gives, or "still running" if it takes longer than the bound. */
function within<T>(promise: Promise<T>, boundMs: number): Promise<T | "still running"> {
  return Promise.race([promise, sleep(boundMs).then(() => "still running" as const)]);
}

async function firstRequests(): Promise<void> {
  while (bulkRequests(env.sandbox).length === 0) await sleep(20);
}

describe("a test that times out", () => {
  let bin: Promise<BinResult> | undefined;
  let inProcess: Promise<RunResult> | undefined;

  it.fails("(on purpose) while the built CLI sends a bulk run", async () => {
    const file = tmp.file("bin.csv");
    writeCandidates(file, ROWS);
    bin = startBin(["invite", "bulk", file, "--test", "1001"], { env: env.env }).exit;
    await firstRequests();
    await bin;
  }, 1_000);

  it("has its child killed when it ends: the next test sees no more of its requests", async () => {
    const ended = await within(bin!, 30_000);
    expect(ended).not.toBe("still running");
    expect((ended as BinResult).signal).toBe("SIGKILL");
    expect(bulkRequests(env.sandbox).length).toBeLessThan(ROWS / 1000);
  });

  it.fails("(on purpose) while main(argv) sends a bulk run in-process", async () => {
    const file = tmp.file("main.csv");
    writeCandidates(file, ROWS, ROWS);
    const mark = env.sandbox.requests.length;
    inProcess = env.run(["invite", "bulk", file, "--test", "1001"]);
    while (bulkRequests(env.sandbox, mark).length === 0) await sleep(20);
    await inProcess;
  }, 1_000);

  it("has its in-process run interrupted when it ends, as Ctrl-C would (exit 130)", async () => {
    const ended = await within(inProcess!, 30_000);
    expect(ended).not.toBe("still running");
    expect((ended as RunResult).code).toBe(130);
  });
});

describe.concurrent("concurrent tests", () => {
  // Concurrent tests share vitest's current test: a child started after an await belongs to whichever test
  // started last, here the short one, which must not stop it as it ends.
  it("a child started after an await in one runs to its end while another ends", async () => {
    await sleep(0);
    const file = tmp.file("concurrent.csv");
    writeCandidates(file, 3000, 2 * ROWS);
    const run = await startBin(["invite", "bulk", file, "--test", "1001", "--concurrency", "1"], {
      env: env.env,
    }).exit;
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
  });

  it("(the other, short)", async () => {
    await sleep(100);
  });
});
