/**
 * A rejects file that cannot be written. Checked before anything is sent: a folder at its path is refused
 * (exit 2) and nothing is sent. Its folder gone once the run is under way (the file is opened when the first row
 * is rejected): the run stops with exit 1 naming the file, the summary lists the rows it would have held, and
 * the rerun sends what the service has not confirmed, so nothing is lost and each e-mail is accepted once.
 * And a --rejects file that is there on a rerun: the run's advice to run again says what that needs (--force).
 * Through `main(argv)` against the sandbox.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BulkResult } from "../../src/bulk/engine/summary.js";
import { useScenarios } from "../helpers/cli.js";
import { bulkRequests, expectEachOnce, invitedCounts, writeCandidates } from "./helpers.js";

const t = useScenarios();

describe("a rejects file that cannot be written", () => {
  it("--rejects naming a folder: exit 2 before anything is sent (invite bulk, employees upsert); the folder untouched", async () => {
    const { cwd, env } = t.scenario();
    const candidates = join(cwd, "mixed.csv");
    writeFileSync(candidates, "email,name\nfolder-ok@example.com,Ok\nnot-an-email,Bad\n");
    const staff = join(cwd, "staff.csv");
    writeFileSync(
      staff,
      "email,firstName,lastName,jobCode\nfolder-staff@example.com,Staff,Row,QA1\n,No,Email,QA1\n",
    );
    const folder = join(cwd, "rejects.csv");
    mkdirSync(folder);
    const mark = t.sandbox.requests.length;

    for (const argv of [
      ["invite", "bulk", candidates, "--test", "1001"],
      ["employees", "upsert", staff],
    ]) {
      const r = await t.run([...argv, "--skip-invalid", "--rejects", folder], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`error: --rejects ${folder} is a folder\n`);
      expect(r.stderr).toContain(
        "hint: Give the name of a file, in that folder or elsewhere; nothing was sent.",
      );
      expect(r.stdout).toBe("");
    }
    expect(t.sandbox.requests.slice(mark).filter((r) => r.method === "POST")).toEqual([]);
    expect(statSync(folder).isDirectory()).toBe(true);
    expect(readdirSync(folder)).toEqual([]);
  });

  it("its folder removed while the run is under way: exit 1 naming the file at the first rejected row; the rerun sends what was not confirmed", async () => {
    const ROWS = 3000;
    const { cwd, env } = t.scenario();
    const file = join(cwd, "candidates.csv");
    writeCandidates(file, ROWS, 9_400_000);
    const out = join(cwd, "out");
    mkdirSync(out);
    const rejects = join(out, "rejects.csv");
    // Each bulk invite held 100 ms; the second is refused as a whole, so its rows go to the rejects file.
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "latency",
      delayMs: 100,
      times: Number.POSITIVE_INFINITY,
    });
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "status",
      status: 400,
      skip: 1,
    });
    const mark = t.sandbox.requests.length;
    // The folder goes once the first request is out: after the check, before the first rejected row.
    const poll = setInterval(() => {
      if (bulkRequests(t.sandbox, mark).length > 0) rmSync(out, { recursive: true, force: true });
    }, 2);
    const invite = () =>
      t.run(
        ["invite", "bulk", file, "--test", "1001", "--concurrency", "1", "--rejects", rejects, "--json"],
        {
          env,
        },
      );
    const run = await invite().finally(() => clearInterval(poll));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`error: Cannot write the rejects file ${rejects}: ENOENT\n`);
    expect(run.stderr).toContain(
      "hint: Check that its folder is writable; the summary lists the rows it would hold.",
    );
    expect(run.stderr).not.toMatch(/looks like a bug|\n\s+at \S+ \(/);
    // The rows it would have held are in the summary.
    const summary = run.json<BulkResult>();
    expect(summary).toMatchObject({ rows: ROWS, failed: 1000, rejects: null });
    expect(summary.failures[0]).toMatchObject({ line: 1002, label: "cand9401000@example.com" });
    expect(summary.failures[0]!.error).toMatch(/^HTTP 400/);

    // Mended, the rerun sends every row the service did not confirm: the refused ones and any not sent.
    mkdirSync(out);
    const rerun = await invite();
    expect(rerun.code, rerun.stderr).toBe(0);
    const second = rerun.json<BulkResult>();
    expect(second).toMatchObject({ rows: ROWS, uncertain: 0, failed: 0 });
    expect(second.alreadyDone + second.sent).toBe(ROWS);
    expect(second.alreadyDone).toBeGreaterThanOrEqual(1000);
    expect(expectEachOnce(invitedCounts(t.sandbox, mark), ROWS, 9_400_000)).toEqual([]);
  });
});

describe("a rejects file named by --rejects, on a rerun", () => {
  it("the advice to run again says --force, since the same command is refused while the file is there", async () => {
    const { cwd, env } = t.scenario();
    const file = join(cwd, "round.csv");
    // A row the service refuses (test 9999 does not exist) and, in the second file, a row that is invalid.
    writeFileSync(file, "email,name,test\nok1@example.com,Ok One,1001\nno1@example.com,No One,9999\n");
    const rejects = join(cwd, "refused.csv");
    const argv = ["invite", "bulk", file, "--rejects", rejects];
    const first = await t.run(argv, { env });
    expect(first.code).toBe(3);
    // It said "run the same command again to resend the 1 refused row", and that command is exit 2.
    expect(first.stderr).toContain(
      `run the same command again with --force (or another --rejects: ${rejects} is there now) to resend the 1 refused row`,
    );
    expect((await t.run(argv, { env })).code).toBe(2);
    const forced = await t.run([...argv, "--force"], { env });
    expect(forced.code).toBe(3);
    expect(forced.stderr).toContain("run the same command again to resend the 1 refused row");

    const invalid = join(cwd, "invalid.csv");
    writeFileSync(invalid, "email,name\nok2@example.com,Ok Two\nnot-an-email,Bad\n");
    // Beside the input, the default rejects file is numbered: the same command runs again as said.
    const beside = ["invite", "bulk", invalid, "--test", "1002", "--skip-invalid"];
    expect((await t.run(beside, { env })).code).toBe(0);
    const besideAgain = await t.run(beside, { env });
    expect(besideAgain.code).toBe(0);
    expect(besideAgain.stderr).toContain("1 invalid row still to fix");
    expect(besideAgain.stderr).toContain("then run the same command again.");
    // Named by --rejects, it is not: the advice says what the rerun needs.
    const bad = join(cwd, "bad.csv");
    const named = [...beside, "--rejects", bad];
    const once = await t.run(named, { env });
    expect(once.code).toBe(0);
    expect(once.stderr).toContain(
      `1 invalid row still to fix (in ${bad}), then run the same command again with --force (or another --rejects: ${bad} is there now).`,
    );
    expect((await t.run(named, { env })).code).toBe(2);
  });
});
