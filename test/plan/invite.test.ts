/**
 * `invite bulk` and candidates who already finished, in-process (main) on the sandbox: a file mixing
 * finished, pending, cancelled and new candidates — the plan's classes, then a run that does not invite the
 * finished ones (and says so), then `--reattempt-finished` (one reattempt each, exactly once), then nothing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { usePlanEnv, writes } from "./env.js";

const b = usePlanEnv();
const ids: Record<string, number> = {};

async function inviteOne(email: string): Promise<number> {
  const r = await b.run(["invite", "send", "--test", "1001", "--email", email, "--name", email, "--json"]);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { testInvitationId: number }).testInvitationId;
}

beforeAll(async () => {
  for (const name of ["fin.one", "fin.two", "pending", "cancelled"])
    ids[name] = await inviteOne(`${name}@plan.example`);
  await b.sandbox.completeAttempt(ids["fin.one"]!, "Complete");
  await b.sandbox.completeAttempt(ids["fin.two"]!, "TestLeft");
  expect((await b.run(["invite", "cancel", String(ids.cancelled)])).code).toBe(0);
  b.sent();
});

const FILE = [
  "email,name",
  "fin.one@plan.example,Fin One",
  "pending@plan.example,Pending",
  "FIN.TWO@plan.example,Fin Two",
  "cancelled@plan.example,Cancelled",
  "new@plan.example,New",
  "new@plan.example,New again",
].join("\n");

interface Plan {
  counts: Record<string, number>;
  [cls: string]: unknown;
}
const emails = (rows: unknown) => (rows as Array<{ email: string }>).map((r) => r.email.toLowerCase()).sort();

describe("invite bulk and finished candidates", () => {
  it("plans, skips the finished ones, then --reattempt-finished gives each one new attempt, once", async () => {
    const file = join(b.dir, "round.csv");
    writeFileSync(file, `${FILE}\n`);

    const planned = await b.run(["invite", "bulk", file, "--test", "1001", "--plan", "--json"]);
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout) as Plan;
    expect(plan.counts).toEqual({ new: 3, ledger: 0, uncertain: 0, finished: 2, invalid: 0, repeat: 1 });
    expect(emails(plan.finished)).toEqual(["fin.one@plan.example", "fin.two@plan.example"]);
    expect(plan.finished).toContainEqual(
      expect.objectContaining({
        line: 2,
        finished: expect.objectContaining({
          testInvitationId: ids["fin.one"],
          finishedBetween: expect.any(Object),
        }),
      }),
    );
    expect(emails(plan.new)).toEqual(["cancelled@plan.example", "new@plan.example", "pending@plan.example"]);
    expect(plan.repeat).toEqual([expect.objectContaining({ line: 7, reason: "repeats line 6" })]);
    // Reads only: the attempt listing (a POST that reads), nothing else.
    let sent = b.sent();
    expect(writes(sent)).toEqual([]);
    expect(sent.length).toBeGreaterThan(0);

    const table = await b.run(["invite", "bulk", file, "--test", "1001", "--plan"]);
    expect(table.stdout).toMatch(
      /fin\.one@plan\.example\t1001\tfinished\tinvitation \d+ Completed?, finished \d{4}-/,
    );
    expect(table.stderr).toContain(
      "Plan for 6 rows: 3 to invite, 2 already finished, 1 repeated; nothing was sent",
    );
    b.sent();

    const ran = await b.run(["invite", "bulk", file, "--test", "1001", "--json"]);
    expect(ran.code).toBe(0);
    sent = writes(b.sent());
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe("/v3/tests/1001/invite/bulk");
    expect(emails((sent[0]!.body as { candidates: unknown }).candidates)).toEqual([
      "cancelled@plan.example",
      "new@plan.example",
      "pending@plan.example",
    ]);
    const summary = JSON.parse(ran.stdout);
    expect(summary).toMatchObject({ rows: 6, sent: 3, duplicates: 1, held: 2 });
    expect(summary.heldRows.map((r: { line: number }) => r.line)).toEqual([2, 4]);
    expect(ran.stderr).toContain(
      "2 candidates already finished test 1001: not invited again; `--reattempt-finished` gives them a new attempt",
    );
    // The cancelled invitation was revived by the invite (the service's rule), the finished ones left alone.
    const state = (id: number) => b.sandbox.state.invitations.find((i) => i.testInvitationId === id)?.status;
    expect(state(ids.cancelled!)).toBe("Pending");
    expect(state(ids["fin.one"]!)).toBe("Complete");

    const again = await b.run(["invite", "bulk", file, "--test", "1001", "--plan", "--json"]);
    expect((JSON.parse(again.stdout) as Plan).counts).toMatchObject({ new: 0, ledger: 3, finished: 2 });
    b.sent();

    const reattempt = await b.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1001",
      "--reattempt-finished",
      "--json",
    ]);
    expect(reattempt.code).toBe(0);
    sent = writes(b.sent());
    expect(sent.map((r) => r.path).sort()).toEqual(
      [ids["fin.one"], ids["fin.two"]].map((id) => `/v3/invitations/${id}/reattempt`).sort(),
    );
    const out = JSON.parse(reattempt.stdout);
    expect(out).toMatchObject({ alreadyDone: 3, sent: 0, held: 2, reattempt: { sent: 2 } });
    expect(out.reattempt.attempts).toHaveLength(2);
    for (const attempt of out.reattempt.attempts) expect(attempt.testInvitationId).not.toBe(attempt.previous);

    const twice = await b.run(["invite", "bulk", file, "--test", "1001", "--reattempt-finished", "--json"]);
    expect(twice.code).toBe(0);
    expect(writes(b.sent())).toEqual([]);
    expect(JSON.parse(twice.stdout)).toMatchObject({ reattempt: { alreadyDone: 2, sent: 0 } });

    const last = await b.run(["invite", "bulk", file, "--test", "1001", "--plan", "--json"]);
    const lastPlan = JSON.parse(last.stdout) as Plan;
    expect(lastPlan.counts).toMatchObject({ new: 0, ledger: 5, finished: 0 });
    expect(lastPlan.ledger).toContainEqual(
      expect.objectContaining({ line: 2, reason: "reattempted from here" }),
    );
  });

  it("--reattempt-finished prints one summary of the file: the finished rows counted by their new attempt", async () => {
    for (const name of ["one.summary", "two.summary"])
      await b.sandbox.completeAttempt(await inviteOne(`${name}@plan.example`), "Complete");
    const file = join(b.dir, "one-summary.csv");
    writeFileSync(
      file,
      "email,name\none.summary@plan.example,One\nthree.summary@plan.example,Three\ntwo.summary@plan.example,Two\n",
    );
    const lines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith(file));
    const ran = await b.run(["invite", "bulk", file, "--test", "1001", "--reattempt-finished"]);
    expect(ran.code, ran.stderr).toBe(0);
    // It printed two: "3 rows: 1 sent, 2 already finished", then "2 rows: 2 sent" of the same file.
    expect(lines(ran.stderr)).toEqual([`${file}: 3 rows: 1 sent, 2 given a new attempt`]);
    expect(ran.stderr).toContain("3 requests: 3 succeeded");
    expect(ran.stderr.match(/✓.*/g)).toEqual([
      "✓ Invited 1 candidate to test 1001; gave a new attempt to 2 finished candidates",
    ]);
    expect(ran.stdout.match(/summary@plan\.example/g)).toHaveLength(2);

    const again = await b.run(["invite", "bulk", file, "--test", "1001", "--reattempt-finished"]);
    expect(again.code, again.stderr).toBe(0);
    expect(lines(again.stderr)).toEqual([`${file}: 3 rows: 1 already done, 2 given a new attempt before`]);
    expect(again.stderr.match(/✓.*/g)).toEqual([
      "✓ Nothing to send: earlier runs already got every row confirmed",
    ]);
  });

  it("a testid column: a candidate finished one test and is new to another", async () => {
    const id = await inviteOne("multi@plan.example");
    await b.sandbox.completeAttempt(id, "Complete");
    const file = join(b.dir, "tests.csv");
    writeFileSync(file, "email,name,testid\nmulti@plan.example,Multi,1001\nmulti@plan.example,Multi,1002\n");
    b.sent();
    const planned = await b.run(["invite", "bulk", file, "--plan", "--json"]);
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout) as Plan;
    expect(plan.finished).toEqual([
      expect.objectContaining({
        line: 2,
        testId: 1001,
        finished: expect.objectContaining({ testInvitationId: id }),
      }),
    ]);
    expect(plan.new).toEqual([expect.objectContaining({ line: 3, testId: 1002 })]);
    expect(writes(b.sent())).toEqual([]);
  });

  it("a file with an invalid row is refused before anything is read or sent, plan or run", async () => {
    const file = join(b.dir, "broken.csv");
    writeFileSync(file, "email,name\nok@plan.example,Ok\nnot-an-email,Bad\n");
    b.sent();
    const ran = await b.run(["invite", "bulk", file, "--test", "1001"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("broken.csv:3");
    expect(b.sent()).toEqual([]);
    writeFileSync(file, 'email,name\nok@plan.example,"Ok\n');
    const planned = await b.run(["invite", "bulk", file, "--test", "1001", "--plan"]);
    expect(planned.code).toBe(2);
    expect(b.sent()).toEqual([]);
  });

  it("a large file's look-up of who finished runs while the file is checked: refused, it stops that read at once and has written nothing", async () => {
    // 50,000 rows (the look-up starts once 10,000 are checked, all valid), the last one invalid.
    const rows = Array.from({ length: 50_000 }, (_, i) => `overlap${i}@plan.example,Overlap Candidate ${i}`);
    const file = join(b.dir, "large.csv");
    writeFileSync(file, `email,name\n${rows.join("\n")}\nnot-an-email,Bad\n`);
    // The service holds the listing 30 s: the file is refused while it is in flight.
    b.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "latency",
      delayMs: 30_000,
      times: Number.POSITIVE_INFINITY,
    });
    b.sent();
    const ran = await b.run(["invite", "bulk", file, "--test", "1001"]);
    // What the sandbox has answered when the run is over (0: not yet, still held).
    const sent = b.sent();
    const listings = sent.filter((r) => r.path === "/v3/candidates/testattempts");
    const answered = listings.map((r) => r.status);
    b.sandbox.faults.clear();
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain("large.csv:50002");
    // Checked one after the other, the file would be refused before the listing was read.
    expect(listings.length).toBeGreaterThan(0);
    // The refusal stopped the listing: the run did not wait the 30 s for its answer (it did: [200, 200, …]).
    expect(
      answered.every((status) => status === 0),
      String(answered),
    ).toBe(true);
    expect(writes(sent)).toEqual([]);
  }, 60_000);

  it("a listing the service refuses leaves the run without the check, said in a warning; --lookback 0 reads nothing", async () => {
    const file = join(b.dir, "refused.csv");
    writeFileSync(file, "email,name\nfin.one@plan.example,Fin One\nlisting@plan.example,Listing\n");
    b.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "status",
      status: 400,
      times: 10,
    });
    b.sent();
    const ran = await b.run(["invite", "bulk", file, "--test", "1001", "--dry-run"]);
    b.sandbox.faults.clear();
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain("could not look up who finished test 1001");
    expect(ran.stderr).toContain("[dry-run] would send 2 candidates");
    expect(writes(b.sent())).toEqual([]);
    const skipped = await b.run([
      "invite",
      "bulk",
      file,
      "--test",
      "1001",
      "--plan",
      "--lookback",
      "0",
      "--json",
    ]);
    expect((JSON.parse(skipped.stdout) as Plan).counts).toMatchObject({ finished: 0 });
    expect(b.sent()).toEqual([]);
  });

  it("--lookback takes days; nonsense is exit 2 before anything is read", async () => {
    const file = join(b.dir, "lookback.csv");
    writeFileSync(file, "email,name\na@plan.example,A\n");
    b.sent();
    const bad = await b.run(["invite", "bulk", file, "--test", "1001", "--plan", "--lookback", "forever"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--lookback");
    expect(b.sent()).toEqual([]);
    const short = await b.run(["invite", "bulk", file, "--test", "1001", "--plan", "--lookback", "45d"]);
    expect(short.code).toBe(0);
    // 45 days: two reads of the attempt listing (≤30 days each).
    expect(b.sent().filter((r) => r.path === "/v3/candidates/testattempts")).toHaveLength(2);
  });
});
