/**
 * A second Ctrl-C while a bulk run is stopping cleanly (src/cli.ts `run()`): the built CLI exits 130 at once,
 * without waiting for the request still out, and a rerun resumes from the ledger: the chunk whose answer the
 * process did not wait for is uncertain (listed, not resent), the rest is sent, each e-mail reaching the sandbox
 * exactly once.
 */
import { expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "../bulk/helpers.js";
import { sleep, startBin, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-second-ctrl-c-");

const ROWS = 6000;
const FROM = 9_500_000;

it("Ctrl-C, then Ctrl-C again while the run waits for its request: exit 130 before the answer; the rerun sends the rest once", async () => {
  const file = tmp.file("candidates.csv");
  writeCandidates(file, ROWS, FROM);
  // The second bulk request is held 5 s: the first Ctrl-C's clean stop would wait for its answer.
  t.sandbox.faults.add({
    method: "POST",
    path: "/v3/tests/*/invite/bulk",
    kind: "latency",
    delayMs: 5000,
    skip: 1,
    times: 1,
  });
  const mark = t.sandbox.requests.length;
  const live = startBin(["invite", "bulk", file, "--test", "1001", "--concurrency", "1"], { env: t.env });
  const held = () => bulkRequests(t.sandbox, mark)[1];
  while (held() === undefined) {
    if (live.child.exitCode !== null) throw new Error(`the run ended first:\n${live.stderr()}`);
    await sleep(5);
  }
  expect(held()!.status).toBe(0);

  live.child.kill("SIGINT");
  // Two signals that close together could reach the process as one.
  await sleep(100);
  live.child.kill("SIGINT");
  const result = await live.exit;
  expect(result.code, result.stderr).toBe(130);
  // It did not wait for the held request: the sandbox is still answering it.
  expect(held()!.status).toBe(0);
  expect(bulkRequests(t.sandbox, mark)).toHaveLength(2);

  // The sandbox processes the held request all the same (its client is gone).
  while (held()!.status === 0) await sleep(20);
  t.sandbox.faults.clear();
  const rerun = await t.run(["invite", "bulk", file, "--test", "1001", "--json"]);
  expect(rerun.code, rerun.stderr).toBe(3);
  const summary = rerun.json<BulkResult>();
  expect(summary).toMatchObject({ rows: ROWS, alreadyDone: 1000, uncertain: 1000, sent: ROWS - 2000 });
  expect(summary.uncertainRows[0]).toMatchObject({ line: 1002 });
  expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, FROM)).toEqual([]);
});
