/**
 * The crash case, as a user would meet it: the built CLI (`node bin/assess.js`) is SIGKILLed while a chunk is
 * out, then run again. Every e-mail must end up invited exactly once.
 */
import { expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { sleep, startBin, useTempDir, useTestEnv } from "../helpers/cli.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

const env = useTestEnv();
const tmp = useTempDir();

const ROWS = 12_000;
const LATENCY_MS = 150;

it("SIGKILL at a random chunk, then a rerun: every e-mail invited exactly once", async () => {
  const file = tmp.file("kill.csv");
  writeCandidates(file, ROWS);
  // Each bulk request sits in the sandbox a while, so the kill lands while one is out.
  env.sandbox.faults.add({
    method: "POST",
    path: "/v3/tests/*/invite/bulk",
    kind: "latency",
    delayMs: LATENCY_MS,
    times: Number.POSITIVE_INFINITY,
  });
  const killAt = 2 + Math.floor(Math.random() * 9); // chunk 2..10 of 12
  console.log(`killing at chunk ${killAt}`);

  const live = startBin(["invite", "bulk", file, "--test", "1001", "--concurrency", "1"], { env: env.env });
  const exited = live.exit.then((r) => r.signal);
  const deadline = Date.now() + 30_000;
  while (bulkRequests(env.sandbox).length < killAt && Date.now() < deadline) await sleep(2);
  live.child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  // The request that was out when the process died is still processed by the sandbox: wait for its answer.
  while (bulkRequests(env.sandbox).some((r) => r.status === 0) && Date.now() < deadline) await sleep(10);
  expect(bulkRequests(env.sandbox)).toHaveLength(killAt);

  const rerun = await env.run(["invite", "bulk", file, "--test", "1001", "--json"]);
  // The chunk that was out is uncertain: listed, not resent, exit 3.
  expect(rerun.code).toBe(3);
  const summary = JSON.parse(rerun.stdout) as BulkResult;
  expect(summary).toMatchObject({
    rows: ROWS,
    alreadyDone: (killAt - 1) * 1000,
    uncertain: 1000,
    sent: ROWS - killAt * 1000,
  });
  expect(summary.uncertainRows[0]).toMatchObject({ line: (killAt - 1) * 1000 + 2 });
  expect(expectEachOnce(invitedCounts(env.sandbox), ROWS)).toEqual([]);

  // Nothing is sent again, however often it is rerun; it keeps reporting the uncertain rows.
  const before = env.sandbox.requests.length;
  const third = await env.run(["invite", "bulk", file, "--test", "1001"]);
  expect(third.code).toBe(3);
  expect(bulkRequests(env.sandbox, before)).toHaveLength(0);
  expect(third.stderr).toMatch(/1,000 rows have an unknown outcome/);
});

it("Ctrl-C (SIGINT) finishes the request in flight, records it, exits 130; the rerun sends the rest once", async () => {
  env.sandbox.faults.clear();
  const file = tmp.file("sigint.csv");
  writeCandidates(file, 6000, 50_000);
  env.sandbox.faults.add({
    method: "POST",
    path: "/v3/tests/*/invite/bulk",
    kind: "latency",
    delayMs: LATENCY_MS,
    times: Number.POSITIVE_INFINITY,
  });
  const mark = env.sandbox.requests.length;
  const live = startBin(["invite", "bulk", file, "--test", "1002", "--concurrency", "1"], { env: env.env });
  const deadline = Date.now() + 30_000;
  while (bulkRequests(env.sandbox, mark).length < 2 && Date.now() < deadline) await sleep(2);
  live.child.kill("SIGINT");
  expect((await live.exit).code).toBe(130);
  expect(live.stderr()).toMatch(/Interrupted: [\d,]+ candidates recorded in the ledger/);
  env.sandbox.faults.clear();
  const rerun = await env.run(["invite", "bulk", file, "--test", "1002", "--json"]);
  expect(rerun.code).toBe(0);
  expect(rerun.json<BulkResult>()).toMatchObject({ uncertain: 0, alreadyDone: 2000, sent: 4000 });
  expect(expectEachOnce(invitedCounts(env.sandbox, mark), 6000, 50_000)).toEqual([]);
});
