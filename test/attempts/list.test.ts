import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/sandbox/index.js";
import { useTestEnv } from "../helpers/cli.js";

const DAY = 86_400_000;
const ATTEMPTS_PATH = "/v3/candidates/testattempts";

const t = useTestEnv();

/** A UTC day relative to today, inside the sandbox's six seeded months. */
const dayOf = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

/** Runs a command and returns what it sent to the attempt listing. */
async function listing(argv: string[]) {
  const before = t.sandbox.requests.length;
  const r = await t.run(argv);
  const sent = t.sandbox.requests.slice(before).filter((q) => q.path === ATTEMPTS_PATH);
  return { r, sent, bounds: sent.map(boundsOf) };
}

function boundsOf(q: RecordedRequest): { start: number; end: number } {
  const body = q.body as { StartDateTime: string; EndDateTime: string };
  return { start: Date.parse(body.StartDateTime), end: Date.parse(body.EndDateTime) };
}

/** Ground truth read from the sandbox's store: the account's finished attempts in [from, to], in completion order. */
function truth(from: number, to: number): number[] {
  return t.sandbox.state.invitations
    .filter(
      (inv) =>
        inv.accountId === "acme" &&
        ["Complete", "TestLeft", "Terminated"].includes(inv.status) &&
        inv.completedAt,
    )
    .filter((inv) => Date.parse(inv.completedAt!) >= from && Date.parse(inv.completedAt!) <= to)
    .sort(
      (a, b) =>
        Date.parse(a.completedAt!) - Date.parse(b.completedAt!) || a.testInvitationId - b.testInvitationId,
    )
    .map((inv) => inv.testInvitationId);
}

describe("attempts list", () => {
  it("a 95-day period → 4 requests of ≤30 days that cover it exactly; the result equals the ground truth", async () => {
    const [from, to] = [dayOf(-150), dayOf(-150 + 94)];
    const { r, sent, bounds } = await listing([
      "attempts",
      "list",
      "--from",
      from,
      "--to",
      to,
      "-o",
      "ndjson",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toHaveLength(4);
    expect(sent.every((q) => q.method === "POST" && q.query.state === "completed")).toBe(true);
    for (const b of bounds) expect(b.end - b.start).toBeLessThan(30 * DAY);
    expect(bounds[0]!.start).toBe(Date.parse(`${from}T00:00:00Z`));
    expect(bounds.at(-1)!.end).toBe(Date.parse(`${to}T23:59:59Z`));
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]!.start).toBe(bounds[i - 1]!.end + 1000);
    expect((sent[0]!.body as { StartDateTime: string }).StartDateTime).toBe(`${from}T00:00:00Z`);

    const ids = r.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { testInvitationId: number }).testInvitationId);
    const expected = truth(Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T23:59:59Z`));
    expect(expected.length).toBeGreaterThan(20);
    expect(ids).toEqual(expected);
  });

  it("accepts the documented date forms: ISO with an offset is sent as UTC, 90d … now ends at this second", async () => {
    const day = dayOf(-40);
    const iso = await listing([
      "attempts",
      "list",
      "--from",
      `${day}T02:00:00+02:00`,
      "--to",
      `${day}T23:30:00-01:00`,
      "--json",
    ]);
    expect(iso.r.code, iso.r.stderr).toBe(0);
    expect(iso.sent.map((q) => q.body)).toEqual([
      { StartDateTime: `${day}T00:00:00Z`, EndDateTime: `${dayOf(-39)}T00:30:00Z` },
    ]);

    const rel = await listing(["attempts", "list", "--from", "90d", "--to", "now", "--json"]);
    expect(rel.r.code, rel.r.stderr).toBe(0);
    const { start } = rel.bounds[0]!;
    const { end } = rel.bounds.at(-1)!;
    expect(end - start).toBe(90 * DAY);
    expect(Math.abs(end - Date.now())).toBeLessThan(60_000);
    expect(rel.r.json<unknown[]>().length).toBe(truth(start, end).length);
  });

  it("keeps window order even when a later window answers first, and drops ids seen in an earlier window", async () => {
    const [from, to] = [dayOf(-100), dayOf(-100 + 59)];
    const record = (id: number) => ({
      testInvitationId: id,
      testId: 1001,
      name: `N${id}`,
      email: `n${id}@example.com`,
      teststatus: "Complete",
    });
    t.sandbox.faults.add({ path: ATTEMPTS_PATH, kind: "latency", delayMs: 150, times: 1 });
    t.sandbox.faults.add({
      path: ATTEMPTS_PATH,
      kind: "status",
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({ result: { testAttempts: [record(1), record(2)] }, errors: null }),
      times: 1,
    });
    t.sandbox.faults.add({
      path: ATTEMPTS_PATH,
      kind: "status",
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({ result: { testAttempts: [record(2), record(3)], extra: true }, errors: null }),
      times: 1,
    });
    try {
      const { r, sent, bounds } = await listing(["attempts", "list", "--from", from, "--to", to, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(sent).toHaveLength(2);
      // The windows go out concurrently: the first to arrive got the delay and [1, 2], the second [2, 3].
      const firstWindowArrivedFirst = bounds[0]!.start < bounds[1]!.start;
      const ids = r.json<Array<{ testInvitationId: number }>>().map((a) => a.testInvitationId);
      expect(ids).toEqual(firstWindowArrivedFirst ? [1, 2, 3] : [2, 3, 1]);
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it("--limit stops early; --state is passed through", async () => {
    const { r, sent } = await listing([
      "attempts",
      "list",
      "--from",
      dayOf(-170),
      "--to",
      dayOf(-1),
      "--limit",
      "3",
      "--state",
      "completed",
      "-o",
      "ndjson",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThanOrEqual(6);
  });

  it("prints a table with the §2.8 fields on a terminal", async () => {
    const { r } = await listing(["attempts", "list", "--from", dayOf(-30), "--to", "now"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/INVITATION\tTEST\tNAME\tEMAIL\tSTATUS\tTYPE\tEMPLOYEE/);
  });

  it("usage errors send nothing: missing bounds listed together, end before start, bad date", async () => {
    const before = t.sandbox.requests.length;
    const missing = await t.run(["attempts", "list"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Missing --from, --to");
    const reversed = await t.run(["attempts", "list", "--from", "2026-03-01", "--to", "2026-02-01"]);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toContain("is before --from");
    const bad = await t.run(["attempts", "list", "--from", "last tuesday", "--to", "now"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from: "last tuesday" is not a date');
    expect(t.sandbox.requests.length).toBe(before);
  });
});
