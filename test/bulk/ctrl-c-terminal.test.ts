/**
 * Ctrl-C during a bulk run, as a person at a terminal meets it (the built CLI in a pseudo-terminal): the first
 * says at once what the run waits for and what a second one would leave; the progress bar counts only rows
 * whose fate is known; the second (src/cli.ts `run()`) exits 130 at once, without waiting for the request still
 * out, with a summary of what is settled and what is uncertain, saying what can be done about uncertain
 * invitations; a rerun resumes from the ledger: the chunk whose answer the process did not wait for is uncertain
 * (listed, not resent), the rest is sent, each e-mail reaching the sandbox exactly once. And a run that ends with exit 3 does not pour its JSON summary
 * onto the terminal unless --json asks for it.
 */
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { sleep, useTempDir, useTestEnv } from "../helpers/cli.js";
import { KEY, Terminal } from "../helpers/terminal.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

const t = useTestEnv({ clearFaults: true });
const tmp = useTempDir("assess-ctrl-c-terminal-");

const ROWS = 6000;

/** The bar's counts as drawn, in order ("1,000/6,000" → 1000). */
function barCounts(screen: string): number[] {
  return [...screen.matchAll(/ ([\d,]+)\/6,000 rows/g)].map((m) => Number(m[1]!.replaceAll(",", "")));
}

describe("Ctrl-C during invite bulk on a terminal", () => {
  it("the first says what it waits for, the bar never runs ahead, the second exits 130 with what is settled and uncertain; the rerun sends the rest once", async () => {
    const file = tmp.file("candidates.csv");
    const from = 7_100_000;
    writeCandidates(file, ROWS, from);
    // The second request is held: the first Ctrl-C's clean stop waits for it.
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 5000,
      skip: 1,
      times: 1,
    });
    const mark = t.sandbox.requests.length;
    const term = Terminal.start(["invite", "bulk", file, "--test", "1001", "--concurrency", "1"], t.env);
    try {
      const held = () => bulkRequests(t.sandbox, mark)[1];
      const deadline = Date.now() + 20_000;
      while (held() === undefined && Date.now() < deadline) await sleep(5);
      expect(held()?.status).toBe(0);

      term.type(KEY.ctrlC);
      const said = (await term.waitFor(/Stopping:[\s\S]*?uncertain\./)).replace(/\s+/g, " ");
      expect(said).toBe(
        "Stopping: waiting up to 30 s (--timeout) for the 1 request in flight (1,000 rows) to be answered, so that their outcome is recorded; no other request will be sent. Ctrl-C again stops at once and leaves those rows uncertain.",
      );
      // The rows read on after the stop are not settled: the bar stays at the one chunk answered (it drew
      // 5,000 of 6,000 here, the 4,000 rows not sent counted as done).
      await sleep(300);
      expect(held()?.status).toBe(0);
      expect(Math.max(...barCounts(term.screen))).toBeLessThanOrEqual(1000);

      term.type(KEY.ctrlC);
      expect(await term.exited).toBe(130);
      // It did not wait for the held request.
      expect(held()?.status).toBe(0);
      const screen = term.screen.replace(/\s+/g, " ");
      expect(screen).toContain("6,000 rows: 1,000 sent, 1,000 uncertain, 4,000 not sent (interrupted)");
      expect(screen).toContain("1,000 rows have an unknown outcome");
      // Those rows are named, as any uncertain row is ("… and 1,000 more" listed none of them).
      expect(screen).toMatch(
        /candidates\.csv:1002 cand7101000@example\.com: sent, but the run stopped \(second Ctrl-C\) before the answer came/,
      );
      expect(screen).toContain("… and 980 more");
      expect(screen).toContain("ask these candidates whether the invitation e-mail came");
      expect(screen).toContain("--retry-uncertain invites them again");
      expect(screen).toContain(
        "Stopped at once (second Ctrl-C), without waiting for the requests in flight: their rows are among the uncertain ones. Run the same command again to send the 4,000 candidates not sent",
      );
      expect(Math.max(...barCounts(term.screen))).toBeLessThanOrEqual(1000);
      expect(bulkRequests(t.sandbox, mark)).toHaveLength(2);
    } finally {
      await term.close();
    }

    // The sandbox processes the held request all the same (its client is gone).
    const held = () => bulkRequests(t.sandbox, mark)[1]!;
    while (held().status === 0) await sleep(20);
    t.sandbox.faults.clear();
    const rerun = await t.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(rerun.code, rerun.stderr).toBe(3);
    const summary = rerun.json<BulkResult>();
    expect(summary).toMatchObject({ rows: ROWS, alreadyDone: 1000, uncertain: 1000, sent: ROWS - 2000 });
    expect(summary.uncertainRows[0]).toMatchObject({ line: 1002 });
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, from)).toEqual([]);
  });

  it("one Ctrl-C: the bar counts only rows whose fate is known, never the rows left unsent", async () => {
    const file = tmp.file("clean.csv");
    writeCandidates(file, ROWS, 7_300_000);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 1500,
      skip: 1,
      times: 1,
    });
    const mark = t.sandbox.requests.length;
    const term = Terminal.start(["invite", "bulk", file, "--test", "1003", "--concurrency", "1"], t.env);
    try {
      const deadline = Date.now() + 20_000;
      while (bulkRequests(t.sandbox, mark)[1] === undefined && Date.now() < deadline) await sleep(5);
      term.type(KEY.ctrlC);
      expect(await term.exited).toBe(130);
      const sent = /6,000 rows: ([\d,]+) sent/.exec(term.screen.replace(/\s+/g, " "));
      expect(sent, term.screen).not.toBeNull();
      // It drew 6,000/6,000 as the run ended: the 4,000 rows never sent counted as done.
      expect(Math.max(...barCounts(term.screen))).toBeLessThanOrEqual(Number(sent![1]!.replaceAll(",", "")));
    } finally {
      await term.close();
    }
  });

  it("exit 3 on a terminal: the summary on stderr, the JSON only with --json", async () => {
    const file = tmp.file("lost.csv");
    writeCandidates(file, 1500, 7_200_000);
    t.sandbox.faults.add({ method: "POST", path: "/v3/tests/*/invite/bulk", kind: "lost-after", skip: 1 });
    const plain = Terminal.start(["invite", "bulk", file, "--test", "1002"], t.env);
    try {
      expect(await plain.exited).toBe(3);
      expect(plain.screen).toContain("500 rows have an unknown outcome");
      expect(plain.screen).not.toContain('"uncertainRows"');
    } finally {
      await plain.close();
    }
    const json = Terminal.start(["invite", "bulk", file, "--test", "1002", "--json"], t.env);
    try {
      expect(await json.exited).toBe(3);
      expect(json.screen).toContain('"uncertainRows"');
    } finally {
      await json.close();
    }
  });
});
