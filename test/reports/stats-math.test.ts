/**
 * The math of `assess reports stats` on its own: percentiles, histogram, per-day series, sparkline, bars, and
 * computeStats.
 */
import { describe, expect, it } from "vitest";
import type { ReportOutcome } from "../../src/core/period-reports.js";
import { computeStats, dayOf, scoreOf } from "../../src/core/stats.js";
import {
  bar,
  groupSums,
  histogram,
  mean,
  percentile,
  perDay,
  sparkline,
  summarize,
} from "../../src/core/stats-math.js";

describe("stats math", () => {
  it("percentiles interpolate linearly between ranks, as numpy.percentile's default", () => {
    // numpy.percentile([1, 2, 3, 4], [0, 10, 50, 90, 100]) → [1, 1.3, 2.5, 3.7, 4]
    const four = [1, 2, 3, 4];
    expect(percentile(four, 0)).toBe(1);
    expect(percentile(four, 10)).toBeCloseTo(1.3, 12);
    expect(percentile(four, 50)).toBe(2.5);
    expect(percentile(four, 90)).toBeCloseTo(3.7, 12);
    expect(percentile(four, 100)).toBe(4);
    // numpy.percentile([15, 20, 35, 40, 50], [10, 40, 50, 90]) → [17, 29, 35, 46]
    const five = [15, 20, 35, 40, 50];
    expect(percentile(five, 10)).toBeCloseTo(17, 12);
    expect(percentile(five, 40)).toBeCloseTo(29, 12);
    expect(percentile(five, 50)).toBe(35);
    expect(percentile(five, 90)).toBeCloseTo(46, 12);
    expect(percentile([42], 10)).toBe(42);
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile(four, 101)).toThrow(RangeError);
  });

  it("summarize sorts first: mean, median, p10, p90, min and max of unsorted scores", () => {
    expect(summarize([50, 15, 40, 20, 35])).toEqual({
      mean: 32,
      median: 35,
      p10: 17,
      p90: 46,
      min: 15,
      max: 50,
    });
    expect(summarize([])).toEqual({
      mean: undefined,
      median: undefined,
      p10: undefined,
      p90: undefined,
      min: undefined,
      max: undefined,
    });
    expect(mean([1, 2])).toBe(1.5);
  });

  it("histogram: ten buckets of 10 points, 100 (and anything above) in the last, below 0 in the first", () => {
    const buckets = histogram([0, 9.99, 10, 55, 59.9, 90, 100, 104, -3]);
    expect(buckets.map((b) => [b.from, b.to])).toEqual([
      [0, 10],
      [10, 20],
      [20, 30],
      [30, 40],
      [40, 50],
      [50, 60],
      [60, 70],
      [70, 80],
      [80, 90],
      [90, 100],
    ]);
    expect(buckets.map((b) => b.count)).toEqual([3, 1, 0, 0, 0, 2, 0, 0, 0, 3]);
    expect(histogram([12, 30], 25).map((b) => [b.from, b.to, b.count])).toEqual([
      [0, 25, 1],
      [25, 50, 1],
      [50, 75, 0],
      [75, 100, 0],
    ]);
  });

  it("perDay: every day of the span, empty ones as 0, a day outside it not counted", () => {
    expect(perDay(["2026-03-02", "2026-03-02", "2026-03-04"], "2026-03-01", "2026-03-04")).toEqual([
      { date: "2026-03-01", count: 0 },
      { date: "2026-03-02", count: 2 },
      { date: "2026-03-03", count: 0 },
      { date: "2026-03-04", count: 1 },
    ]);
    // Across the end of February; days before and after the span (.NET's minimum date) stay out of it.
    expect(perDay(["0001-01-01", "2028-02-29", "2028-03-01"], "2028-02-28", "2028-02-29")).toEqual([
      { date: "2028-02-28", count: 0 },
      { date: "2028-02-29", count: 1 },
    ]);
  });

  it("sparkline: ▁ is none, any attempt at least ▂, the busiest █; groupSums folds days into marks", () => {
    expect(sparkline([0, 1, 4, 8])).toBe("▁▃▅█");
    expect(sparkline([0, 1, 100])).toBe("▁▂█");
    expect(sparkline([0, 0])).toBe("▁▁");
    expect(sparkline([])).toBe("");
    expect(groupSums([1, 2, 3, 4, 5], 2)).toEqual([3, 7, 5]);
  });

  it("bars are drawn in eighths of a cell, never empty for a count above 0", () => {
    expect(bar(10, 10, 4)).toBe("████");
    expect(bar(5, 10, 4)).toBe("██");
    expect(bar(1, 16, 4)).toBe("▎");
    expect(bar(3, 8, 4)).toBe("█▌");
    expect(bar(1, 1000, 4)).toBe("▏");
    expect(bar(0, 10, 4)).toBe("");
  });

  it("reads reports leniently: numeric text, points out of the total, times without an offset as UTC", () => {
    expect(scoreOf({ ScorePercentage: "67.5" } as never)).toBe(67.5);
    expect(scoreOf({ candidatePoints: 14, totalTestPoints: 20 } as never)).toBe(70);
    expect(scoreOf({ candidatePoints: 14, totalTestPoints: 0 } as never)).toBeUndefined();
    expect(dayOf({ attemptedOn: "2020-06-18T23:15:30" } as never)).toBe("2020-06-18");
    expect(dayOf({ attemptedOn: "2020-06-18T23:15:30-02:00" } as never)).toBe("2020-06-19");
    expect(dayOf({ CompletedOn: "2020-06-20T01:00:00Z", attemptedOn: "2020-06-18T10:00:00Z" } as never)).toBe(
      "2020-06-20",
    );
    expect(dayOf({ attemptedOn: "not a time" } as never)).toBeUndefined();
  });
});

describe("computeStats", () => {
  const outcome = (id: number, testId: unknown, report?: Record<string, unknown>): ReportOutcome =>
    (report === undefined
      ? {
          attempt: { testInvitationId: id, testId, testStatus: "Completed" },
          error: new Error(`HTTP 500 for ${id}`),
        }
      : { attempt: { testInvitationId: id, testId }, report }) as ReportOutcome;

  it("groups by test (the listing's id, as text too, else the report's), counts statuses, and passes at the mark", () => {
    const stats = computeStats({
      outcomes: [
        outcome(1, 7, { Status: "TestLeft", scorePercentage: 60, completedOn: "2026-03-02T10:00:00Z" }),
        outcome(2, "7", {
          Status: "Complete",
          scorePercentage: 59.99,
          testName: "Seven",
          attemptedOn: "2026-03-01T23:00:00",
        }),
        outcome(3, 7),
        outcome(4, null, { TestId: "9", Status: "Odd", candidatePoints: 3, totalTestPoints: 4 }),
        outcome(5, 8, { Status: "Complete" }),
      ],
      testIds: [],
      from: "2026-03-01T00:00:00Z",
      to: "2026-03-03T23:59:59Z",
      firstDay: "2026-03-01",
      lastDay: "2026-03-03",
      passMark: 60,
    });
    expect(stats.map((s) => s.testId)).toEqual([7, 8, 9]);
    const [seven, eight, nine] = stats;
    expect(seven).toMatchObject({
      testName: "Seven",
      attempts: 3,
      reports: 2,
      scored: 2,
      // Known statuses first, in their order; the failed attempt's status is the listing's.
      statuses: { Complete: 1, TestLeft: 1, Completed: 1 },
      passed: 1,
      passRate: 0.5,
      min: 59.99,
      max: 60,
      failedReports: [{ testInvitationId: 3, error: "HTTP 500 for 3" }],
    });
    expect(Object.keys(seven!.statuses)).toEqual(["Complete", "TestLeft", "Completed"]);
    expect(seven!.perDay).toEqual([
      { date: "2026-03-01", count: 1 },
      { date: "2026-03-02", count: 1 },
      { date: "2026-03-03", count: 0 },
    ]);
    // No score and no time: counted, but in no statistic.
    expect(eight).toMatchObject({
      attempts: 1,
      reports: 1,
      scored: 0,
      mean: null,
      passed: 0,
      passRate: null,
      undated: 1,
    });
    expect(nine).toMatchObject({ attempts: 1, scored: 1, mean: 75, statuses: { Odd: 1 } });
  });

  it("a test asked for with --test is shown even without attempts, in the order asked", () => {
    const stats = computeStats({
      outcomes: [outcome(1, 7, { scorePercentage: 10 })],
      testIds: [12, 7],
      from: "a",
      to: "b",
      firstDay: "2026-03-01",
      lastDay: "2026-03-01",
    });
    expect(stats.map((s) => [s.testId, s.attempts, s.passMark])).toEqual([
      [12, 0, null],
      [7, 1, null],
    ]);
    expect(stats[0]!.histogram.every((b) => b.count === 0)).toBe(true);
  });
});
