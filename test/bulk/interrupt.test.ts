/**
 * Ctrl-C during a bulk run: the summary counts the file's rows, not the rows read so far (main(argv) with an
 * abort signal, against the sandbox).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { formatCount } from "../../src/output/progress.js";
import { useScenarios } from "../helpers/cli.js";

const t = useScenarios();

const isBulkInvite = (r: { method: string; path: string }) =>
  r.method === "POST" && /^\/v3\/tests\/\d+\/invite\/bulk$/.test(r.path);

/** Aborts `controller` once `n` bulk-invite requests have reached the sandbox since `mark`. */
function abortAfter(controller: AbortController, n: number, mark: number): () => void {
  const poll = setInterval(() => {
    if (t.sandbox.requests.slice(mark).filter(isBulkInvite).length >= n) controller.abort();
  }, 2);
  return () => clearInterval(poll);
}

describe("Ctrl-C during a bulk run counts the file's rows, not the rows read so far", () => {
  it("60,000 rows, interrupted after two requests: rows is 60,000, and sent + not sent make the file", async () => {
    const ROWS = 60_000;
    const { cwd, env } = t.scenario();
    const file = join(cwd, "sixty-thousand.csv");
    const lines = ["email,name"];
    for (let i = 0; i < ROWS; i++) lines.push(`ctrlc${i}@example.com,Candidate ${i}`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 150,
      times: Number.POSITIVE_INFINITY,
    });
    const controller = new AbortController();
    const mark = t.sandbox.requests.length;
    const stop = abortAfter(controller, 2, mark);
    const run = await t.run(["invite", "bulk", file, "--test", "1001", "--concurrency", "1", "--json"], {
      signal: controller.signal,
      env,
    });
    stop();
    expect(run.code).toBe(130);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({
      rows: ROWS,
      valid: ROWS,
      invalid: 0,
      duplicates: 0,
      alreadyDone: 0,
      uncertain: 0,
      interrupted: true,
    });
    // The request out when Ctrl-C came finished and counts as sent; nothing after it went out.
    expect(summary.sent).toBeGreaterThanOrEqual(2000);
    expect(summary.sent).toBeLessThan(10_000);
    expect(summary.sent + summary.unsent).toBe(ROWS);
    expect(t.sandbox.requests.slice(mark).filter(isBulkInvite)).toHaveLength(summary.chunks.total);
    expect(run.stderr).toContain(
      `${file}: 60,000 rows: ${formatCount(summary.sent)} sent, ${formatCount(ROWS - summary.sent)} not sent (interrupted)`,
    );
    expect(run.stderr).toMatch(/Interrupted: [\d,]+ candidates recorded in the ledger; run the same command/);

    // The rerun sends exactly what the first run said it had not.
    t.sandbox.faults.clear();
    const rerun = await t.run(["invite", "bulk", file, "--test", "1001", "--json"], { env });
    expect(rerun.code).toBe(0);
    expect(rerun.json<BulkResult>()).toMatchObject({
      rows: ROWS,
      alreadyDone: summary.sent,
      sent: summary.unsent,
    });
  });

  it("--skip-invalid: invalid rows and repeats past the interruption are counted (and rejected) as in a whole run", async () => {
    const ROWS = 20_000;
    const { cwd, env } = t.scenario();
    const file = join(cwd, "skip-interrupted.csv");
    const lines = ["email,name"];
    for (let i = 0; i < ROWS; i++) {
      // Two invalid rows early, three late; two late repeats of early rows.
      if (i === 10 || i === 15_000 || i === 19_990) lines.push(`not-an-email-${i},Bad ${i}`);
      else if (i === 20 || i === 19_999) lines.push(`,Nobody ${i}`);
      else if (i === 18_000) lines.push("skip1@example.com,Again");
      else if (i === 18_001) lines.push("SKIP2@example.com,Again");
      else lines.push(`skip${i}@example.com,Candidate ${i}`);
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 150,
      times: Number.POSITIVE_INFINITY,
    });
    const controller = new AbortController();
    const stop = abortAfter(controller, 1, t.sandbox.requests.length);
    const rejects = join(cwd, "skip-interrupted.rejects.csv");
    const run = await t.run(
      ["invite", "bulk", file, "--test", "1002", "--concurrency", "1", "--skip-invalid", "--json"],
      { signal: controller.signal, env },
    );
    stop();
    expect(run.code).toBe(130);
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({
      rows: ROWS,
      valid: ROWS - 5,
      invalid: 5,
      duplicates: 2,
      interrupted: true,
    });
    expect(summary.sent + summary.unsent + summary.duplicates + summary.invalid).toBe(ROWS);
    expect(summary.invalidRows.map((r) => r.line)).toEqual([12, 22, 15_002, 19_992, 20_001]);
    expect(summary.duplicateRows.map((r) => [r.line, r.error])).toEqual([
      [18_002, "repeats an earlier row; sent once"],
      [18_003, "repeats an earlier row; sent once"],
    ]);
    // Every invalid row is in the rejects file, those after the interruption too.
    const rejected = readFileSync(rejects, "utf8").trim().split(/\r?\n/);
    expect(rejected).toHaveLength(6);
    expect(rejected.at(-1)).toMatch(/^,Nobody 19999,line 20001: /);
    expect(run.stderr).toContain(
      `20,000 rows: ${formatCount(summary.sent)} sent, 2 duplicates, 5 invalid, ${formatCount(summary.unsent)} not sent (interrupted)`,
    );
  });
});
