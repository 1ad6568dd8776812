/**
 * Two runs of the built CLI start at once over a ledger whose lock a dead process left: one takes it over, the
 * other is refused ("Another assess run (pid N)", exit 2) or, if it starts after the first ended, finds every
 * row done. Every e-mail reaches the service exactly once, and no lock file is left.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runBin, useTempDir, useTestEnv } from "../helpers/cli.js";
import { expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

const env = useTestEnv();
const tmp = useTempDir("assess-ledger-lock-race-");

const ROWS = 2000;

it("two runs over a stale ledger lock: one takes it over, each row is sent once", async () => {
  const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
  // Each bulk request sits in the sandbox a while, so the two runs overlap.
  env.sandbox.faults.add({
    method: "POST",
    path: "/v3/tests/*/invite/bulk",
    kind: "latency",
    delayMs: 100,
    times: Number.POSITIVE_INFINITY,
  });
  const invite = (file: string) => runBin(["invite", "bulk", file, "--test", "1001"], { env: env.env });
  const first = tmp.file("first.csv");
  writeCandidates(first, 10, 5_000_000);
  expect((await invite(first)).code).toBe(0);
  const ledgers = join(env.configDir, "ledgers");
  const [ledger] = readdirSync(ledgers).filter((name) => name.endsWith(".ndjson"));
  const mark = env.sandbox.requests.length;
  for (let trial = 0; trial < 3; trial++) {
    const file = tmp.file(`trial${trial}.csv`);
    writeCandidates(file, ROWS, trial * ROWS);
    writeFileSync(join(ledgers, `${ledger}.lock`), String(dead));
    const both = await Promise.all([invite(file), invite(file)]);
    for (const run of both) {
      expect([0, 2], run.stderr).toContain(run.code);
      if (run.code === 2) expect(run.stderr).toContain("Another assess run (pid ");
    }
  }
  expect(expectEachOnce(invitedCounts(env.sandbox, mark), 3 * ROWS)).toEqual([]);
  expect(readdirSync(ledgers).filter((name) => name.includes(".lock"))).toEqual([]);
});
