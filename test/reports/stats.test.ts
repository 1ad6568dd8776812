/**
 * `assess reports stats` in-process (`main`; on a pipe, the built CLI) against the sandbox, its numbers checked
 * against ones this file computes itself from the attempts and reports it fetches over plain HTTP (not through the client).
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { runBin, useTestEnv } from "../helpers/cli.js";

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------------------

const t = useTestEnv();

/** The built CLI as a user runs it (stdout and stderr pipes), against the test's sandbox. */
const assess = (args: string[]) => runBin(args, { env: t.env });
/** The same in-process (`main`). */
const run = (args: string[]) => t.run(args);

const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, "Z");
const NOW = Date.now();
/** 50 days: two listing windows. */
const FROM = seconds(NOW - 50 * DAY_MS);
const TO = seconds(NOW);
const PERIOD = ["--from", FROM, "--to", TO];
const PASS_MARK = 60;

interface Truth {
  testId: number;
  testName: string;
  scores: number[];
  statuses: Record<string, number>;
  days: Record<string, number>;
}

/** Straight HTTP to the sandbox, as curl would: the attempts of each ≤30-day window, then every report. */
async function independentTruth(): Promise<Map<number, Truth>> {
  const base = t.env.ASSESS_BASE_URL!;
  const headers = { "x-api-key": t.env.ASSESS_API_KEY!, "content-type": "application/json" };
  const windows = [
    [FROM, seconds(Date.parse(FROM) + 30 * DAY_MS)],
    [seconds(Date.parse(FROM) + 30 * DAY_MS), TO],
  ];
  const ids = new Set<number>();
  for (const [start, end] of windows) {
    const res = await fetch(`${base}/v3/candidates/testattempts?state=completed`, {
      method: "POST",
      headers,
      body: JSON.stringify({ StartDateTime: start, EndDateTime: end }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { testAttempts: Array<{ testInvitationId: number }> } };
    for (const attempt of body.result.testAttempts) ids.add(attempt.testInvitationId);
  }
  const truth = new Map<number, Truth>();
  for (const id of ids) {
    const res = await fetch(`${base}/v3/reports/${id}`, { headers });
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      testId: number;
      testName: string;
      scorePercentage: number;
      Status: string;
      completedOn: string;
    };
    let entry = truth.get(report.testId);
    if (!entry) {
      entry = { testId: report.testId, testName: report.testName, scores: [], statuses: {}, days: {} };
      truth.set(report.testId, entry);
    }
    entry.scores.push(report.scorePercentage);
    entry.statuses[report.Status] = (entry.statuses[report.Status] ?? 0) + 1;
    const day = report.completedOn.slice(0, 10);
    entry.days[day] = (entry.days[day] ?? 0) + 1;
  }
  return truth;
}

/** The textbook definitions, written again here, plainly. */
function quantile(values: number[], q: number): number {
  const xs = [...values].sort((a, b) => a - b);
  const pos = (xs.length - 1) * q;
  const i = Math.floor(pos);
  const j = Math.min(i + 1, xs.length - 1);
  return xs[i]! * (1 - (pos - i)) + xs[j]! * (pos - i);
}

interface StatsJson {
  testId: number;
  testName: string;
  from: string;
  to: string;
  attempts: number;
  reports: number;
  scored: number;
  statuses: Record<string, number>;
  mean: number;
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
  passMark: number | null;
  passed: number | null;
  passRate: number | null;
  histogram: Array<{ from: number; to: number; count: number }>;
  perDay: Array<{ date: string; count: number }>;
  undated: number;
  failedReports: Array<{ testInvitationId: number; error: string }>;
}

describe("assess reports stats (built CLI, sandbox)", () => {
  it("--json: every number equals one computed here from the attempts and reports fetched over HTTP", async () => {
    const truth = await independentTruth();
    expect(truth.size).toBeGreaterThanOrEqual(3);
    const r = await run(["reports", "stats", ...PERIOD, "--pass-mark", String(PASS_MARK), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const stats = JSON.parse(r.stdout) as StatsJson[];
    expect(stats.map((s) => s.testId)).toEqual([...truth.keys()].sort((a, b) => a - b));
    for (const s of stats) {
      const want = truth.get(s.testId)!;
      const n = want.scores.length;
      expect(n).toBeGreaterThan(1);
      expect(s).toMatchObject({
        testName: want.testName,
        from: FROM,
        to: TO,
        attempts: n,
        reports: n,
        scored: n,
        statuses: want.statuses,
        passMark: PASS_MARK,
        failedReports: [],
        undated: 0,
        outOfRange: 0,
      });
      expect(s.mean).toBeCloseTo(want.scores.reduce((a, b) => a + b, 0) / n, 1);
      expect(s.median).toBeCloseTo(quantile(want.scores, 0.5), 1);
      expect(s.p10).toBeCloseTo(quantile(want.scores, 0.1), 1);
      expect(s.p90).toBeCloseTo(quantile(want.scores, 0.9), 1);
      expect(s.min).toBe(Math.min(...want.scores));
      expect(s.max).toBe(Math.max(...want.scores));
      const passed = want.scores.filter((x) => x >= PASS_MARK).length;
      expect(s.passed).toBe(passed);
      // Rounded to 2 decimals, as the statistics are (0.61, not 0.6086956…).
      expect(s.passRate).toBe(Math.round((passed / n) * 100) / 100);
      const counts = Array.from({ length: 10 }, () => 0);
      for (const x of want.scores) counts[Math.min(9, Math.floor(x / 10))]!++;
      expect(s.histogram.map((b) => b.count)).toEqual(counts);
      // Every day of the period, in order, the busy ones with the counts of their completion times.
      expect(s.perDay[0]!.date).toBe(FROM.slice(0, 10));
      expect(s.perDay.at(-1)!.date).toBe(TO.slice(0, 10));
      expect(s.perDay).toHaveLength(51);
      expect(Object.fromEntries(s.perDay.filter((d) => d.count > 0).map((d) => [d.date, d.count]))).toEqual(
        want.days,
      );
    }
  });

  it("without --pass-mark there is no pass rate (null), and --test keeps to the tests given, in their order", async () => {
    const r = await run(["reports", "stats", ...PERIOD, "--test", "1003,1001", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const stats = JSON.parse(r.stdout) as StatsJson[];
    expect(stats.map((s) => s.testId)).toEqual([1003, 1001]);
    for (const s of stats) expect([s.passMark, s.passed, s.passRate]).toEqual([null, null, null]);
  });

  it("a terminal gets a block per test: statistics, pass rate, histogram bars and a per-day sparkline", async () => {
    const r = await t.run(["reports", "stats", ...PERIOD, "--test", "1001", "--pass-mark", "60"], {
      tty: true,
    });
    expect(r.code, r.stderr).toBe(0);
    const json = (
      await t.run(["reports", "stats", ...PERIOD, "--test", "1001", "--pass-mark", "60", "--json"])
    ).json<StatsJson[]>()[0]!;
    expect(r.stdout).toContain("Test 1001 · JavaScript Fundamentals");
    expect(r.stdout).toMatch(new RegExp(`mean ${Math.round(json.mean * 10) / 10} · median `));
    expect(r.stdout).toMatch(/Pass rate {2}\d+(\.\d)?% \(\d+ of \d+ scored 60 or more\)/);
    // Ten bucket lines, each with its bar and count; the fullest bucket's bar is the whole width.
    const lines = r.stdout.split("\n").filter((line) => / │/.test(line));
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^\s+0–<10 │/);
    expect(lines[9]).toMatch(/^\s+90–100 │/);
    const fullest = Math.max(...json.histogram.map((b) => b.count));
    expect(lines.some((line) => line.includes(`${"█".repeat(30)} ${fullest}`))).toBe(true);
    expect(lines.map((line) => Number(line.trimEnd().split(" ").at(-1)))).toEqual(
      json.histogram.map((b) => b.count),
    );
    // The sparkline: one mark a day (51 days fit a 120-column terminal), ▁ where none finished.
    const spark = /Per day {4}([▁▂▃▄▅▆▇█]+)\n/.exec(r.stdout)?.[1];
    expect(spark).toBeDefined();
    expect([...spark!]).toHaveLength(json.perDay.length);
    expect([...spark!].map((mark) => mark === "▁")).toEqual(json.perDay.map((d) => d.count === 0));
  });

  it("-o table through the built CLI on a pipe draws the same; days that do not fit are folded into marks", async () => {
    // 101 days on a pipe (80 columns assumed): two days a mark.
    const from = seconds(NOW - 100 * DAY_MS);
    const json = JSON.parse(
      (await assess(["reports", "stats", "--from", from, "--to", TO, "--test", "1002", "--json"])).stdout,
    ) as StatsJson[];
    const r = await assess(["reports", "stats", "--from", from, "--to", TO, "--test", "1002", "-o", "table"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Test 1002 · Python Developer");
    expect(r.stdout).toMatch(/ {4}\d+–<?\d+ │█*[▏▎▍▌▋▊▉]? +\d+\n/);
    expect(r.stdout).not.toContain("Pass rate");
    const spark = /Per day {4}([▁▂▃▄▅▆▇█]+)\n/.exec(r.stdout)?.[1];
    const days = json[0]!.perDay;
    expect(days).toHaveLength(101);
    expect([...spark!]).toHaveLength(51);
    const pairs = Array.from({ length: 51 }, (_, k) =>
      days.slice(2 * k, 2 * k + 2).reduce((a, d) => a + d.count, 0),
    );
    expect([...spark!].map((mark) => mark === "▁")).toEqual(pairs.map((n) => n === 0));
    expect(r.stdout).toContain(`${days[0]!.date} … ${days[100]!.date} (busiest day `);
    expect(r.stdout).toContain(", each mark 2 days)");
  });

  it("-o csv: a header and one flat row per test, with the --json numbers", async () => {
    const csv = await run(["reports", "stats", ...PERIOD, "--pass-mark", "60", "-o", "csv"]);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    const json = JSON.parse(
      (await run(["reports", "stats", ...PERIOD, "--pass-mark", "60", "--json"])).stdout,
    ) as StatsJson[];
    expect(rows).toHaveLength(json.length);
    expect(csv.stdout.split("\r\n")[0]).toMatch(
      /^testId,testName,from,to,attempts,reports,failedReports,scored,status_Complete,status_TestLeft,status_Terminated,mean,median,p10,p90,min,max,passMark,passed,passRate,score_0_10,.*,score_90_100,activeDays,busiestDay,undated,outOfRange$/,
    );
    rows.forEach((row, i) => {
      const s = json[i]!;
      expect(Number(row.testId)).toBe(s.testId);
      expect(row.testName).toBe(s.testName);
      expect(Number(row.attempts)).toBe(s.attempts);
      expect(Number(row.status_Complete)).toBe(s.statuses.Complete ?? 0);
      for (const key of ["mean", "median", "p10", "p90", "min", "max", "passed"] as const)
        expect(Number(row[key])).toBe(s[key]);
      expect(Number(row.passRate)).toBe(s.passRate);
      expect(Number(row.score_50_60)).toBe(s.histogram[5]!.count);
      expect(Number(row.busiestDay)).toBe(Math.max(...s.perDay.map((d) => d.count)));
    });
  });

  it("a period without attempts: the CSV header alone (every column), a note on stderr, exit 0", async () => {
    const r = await run(["reports", "stats", "--from", "2020-01-01", "--to", "2020-01-05", "-o", "csv"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\r\n")).toEqual([
      expect.stringMatching(/^testId,.*,score_0_10,.*,score_90_100,.*undated,outOfRange$/),
      "",
    ]);
    expect(r.stderr).toContain("No finished attempts in that period.");
  });

  it("a report that fails (500, 404) is counted and named, the others still counted: exit 0", async () => {
    const before = JSON.parse(
      (await run(["reports", "stats", ...PERIOD, "--test", "1001", "--json"])).stdout,
    )[0] as StatsJson;
    const truth = (await independentTruth()).get(1001)!;
    expect(truth.scores.length).toBeGreaterThan(3);
    // Two of test 1001's attempts: one answers 500 however often asked, the other 404.
    const listed = await t.run(["attempts", "list", ...PERIOD, "--json"]);
    const ids = listed
      .json<Array<{ testInvitationId: number; testId: number }>>()
      .filter((a) => a.testId === 1001)
      .map((a) => a.testInvitationId);
    const [broken, missing] = [ids[0]!, ids[1]!];
    t.sandbox.faults.add({
      method: "GET",
      path: `/v3/reports/${broken}`,
      kind: "status",
      status: 500,
      times: Number.POSITIVE_INFINITY,
    });
    t.sandbox.faults.add({
      method: "GET",
      path: `/v3/reports/${missing}`,
      kind: "status",
      status: 404,
      body: JSON.stringify({ errors: ["Invitation not found"] }),
      contentType: "application/json",
      times: Number.POSITIVE_INFINITY,
    });
    try {
      const r = await run(["reports", "stats", ...PERIOD, "--test", "1001", "--json", "--retries", "1"]);
      expect(r.code, r.stderr).toBe(0);
      const [s] = JSON.parse(r.stdout) as StatsJson[];
      expect(s!.attempts).toBe(before.attempts);
      expect(s!.reports).toBe(before.attempts - 2);
      expect(s!.scored).toBe(before.attempts - 2);
      expect(s!.failedReports.map((f) => f.testInvitationId).sort()).toEqual([broken, missing].sort());
      expect(s!.failedReports.find((f) => f.testInvitationId === missing)!.error).toContain(
        "Invitation not found",
      );
      // The statuses still count every attempt: the listing's for the two without a report.
      expect(Object.values(s!.statuses).reduce((a, b) => a + b, 0)).toBe(before.attempts);
      expect(r.stderr).toContain(`2 of ${before.attempts} report(s) could not be fetched`);
      expect(r.stderr).toMatch(new RegExp(`^  ${broken}: .+`, "m"));
      expect(r.stderr).toMatch(new RegExp(`^  ${missing}: .*Invitation not found`, "m"));
      expect(s!.histogram.reduce((a, b) => a + b.count, 0)).toBe(before.attempts - 2);
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it("every report failing: the numbers are empty, each failure is named, exit 1", async () => {
    t.sandbox.faults.add({
      method: "GET",
      path: "/v3/reports/*",
      kind: "status",
      status: 503,
      times: Number.POSITIVE_INFINITY,
    });
    try {
      const r = await run(["reports", "stats", ...PERIOD, "--test", "1005", "--json", "--retries", "0"]);
      expect(r.code).toBe(1);
      const [s] = JSON.parse(r.stdout) as StatsJson[];
      expect(s!.attempts).toBeGreaterThan(0);
      expect(s!.reports).toBe(0);
      expect(s!.mean).toBeNull();
      expect(s!.failedReports).toHaveLength(s!.attempts);
      expect(r.stderr).toContain(`${s!.attempts} of ${s!.attempts} report(s) could not be fetched`);
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it("reads a report in the real service's other shapes: an envelope, PascalCase keys, numbers as text", async () => {
    const run = async () =>
      (await t.run(["reports", "stats", ...PERIOD, "--test", "1004", "--json"])).json<StatsJson[]>()[0]!;
    const before = await run();
    const listed = await t.run(["attempts", "list", ...PERIOD, "--json"]);
    const id = listed
      .json<Array<{ testInvitationId: number; testId: number }>>()
      .find((a) => a.testId === 1004)!.testInvitationId;
    const original = await t.run(["reports", "get", String(id), "--json"]);
    const report = original.json<{ scorePercentage: number; completedOn: string }>();
    t.sandbox.faults.add({
      method: "GET",
      path: `/v3/reports/${id}`,
      kind: "status",
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({
        result: {
          TestId: "1004",
          TestName: "Customer Support English",
          Status: "Complete",
          ScorePercentage: "100",
          CompletedOn: report.completedOn,
        },
        errors: null,
      }),
      times: Number.POSITIVE_INFINITY,
    });
    try {
      const after = await run();
      expect(after.scored).toBe(before.scored);
      expect(after.failedReports).toEqual([]);
      expect(after.max).toBe(100);
      expect(after.mean).toBeCloseTo(before.mean + (100 - report.scorePercentage) / before.scored, 1);
      expect(after.perDay).toEqual(before.perDay);
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it("refuses a --pass-mark that is not a percentage (exit 2, nothing sent)", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["reports", "stats", ...PERIOD, "--pass-mark", "120"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--pass-mark must be a score percentage from 0 to 100, got "120"');
    expect(t.sandbox.requests.length).toBe(before);
  });
});
