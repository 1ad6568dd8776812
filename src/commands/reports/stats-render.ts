/** How `reports stats` shows its numbers: a block per test on a terminal, a flat row per test in TSV/CSV. */
import { escapeControls } from "../../escape.js";
import type { Column, Row } from "../../output/output.js";
import type { Style } from "../../output/style.js";
import { FINAL_STATUSES, type TestStats } from "./stats-compute.js";
import { bar, groupSums, histogram, largest, sparkline } from "./stats-math.js";

const HISTOGRAM_WIDTH = 30;
/** Marks of a sparkline at most, whatever the terminal's width: a quarter of a year, a day a mark. */
const MAX_SPARKLINE = 92;

// The numbers as --json has them (rounded once, in stats-compute.ts): the same in every format.
const num = (n: number | null) => (n === null ? "–" : String(n));
const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** One test's block, as text for a terminal `width` columns wide. */
export function renderTest(test: TestStats, style: Style, width: number): string {
  const lines: string[] = [];
  const name = test.testName === null ? "" : ` · ${escapeControls(test.testName)}`;
  lines.push(style.bold(`Test ${test.testId ?? "(none)"}${name}`));
  const label = (text: string) => `  ${text.padEnd(11)}`;

  const failed = test.failedReports.length;
  lines.push(
    `${label("Attempts")}${plural(test.attempts, "finished attempt")} · ${plural(test.reports, "report")}` +
      (failed > 0 ? ` · ${failed} failed` : ""),
  );
  const statuses = Object.entries(test.statuses)
    .map(([status, count]) => `${escapeControls(status)} ${count}`)
    .join(" · ");
  if (statuses !== "") lines.push(`${label("Status")}${statuses}`);
  if (test.scored === 0) {
    lines.push(`${label("Score %")}no scores`);
    return `${lines.join("\n")}\n`;
  }
  lines.push(
    `${label("Score %")}mean ${num(test.mean)} · median ${num(test.median)} · p10 ${num(test.p10)} · p90 ${num(test.p90)} · min ${num(test.min)} · max ${num(test.max)}`,
  );
  if (test.passMark !== null && test.passed !== null && test.passRate !== null) {
    lines.push(
      `${label("Pass rate")}${percent(test.passRate)} (${test.passed} of ${test.scored} scored ${test.passMark} or more)`,
    );
  }

  lines.push("  Histogram");
  const maxCount = largest(test.histogram.map((b) => b.count));
  const bucketLabels = test.histogram.map((b, i) =>
    i === test.histogram.length - 1 ? `${b.from}–${b.to}` : `${b.from}–<${b.to}`,
  );
  const labelWidth = Math.max(...bucketLabels.map((l) => l.length));
  test.histogram.forEach((bucket, i) => {
    const drawn = bar(bucket.count, maxCount, HISTOGRAM_WIDTH);
    lines.push(
      `    ${bucketLabels[i]!.padStart(labelWidth)} │${drawn.padEnd(HISTOGRAM_WIDTH)} ${bucket.count}`,
    );
  });

  if (test.perDay.length > 0) {
    // Wider periods than the terminal: each mark sums a run of days.
    const room = Math.min(MAX_SPARKLINE, Math.max(10, width - 15));
    const size = Math.ceil(test.perDay.length / room);
    const counts = test.perDay.map((d) => d.count);
    const each = size === 1 ? "" : `, each mark ${size} days`;
    lines.push(`${label("Per day")}${sparkline(groupSums(counts, size))}`);
    lines.push(
      `${" ".repeat(13)}${test.perDay[0]!.date} … ${test.perDay.at(-1)!.date} (busiest day ${largest(counts)}${each})`,
    );
  }
  if (test.undated > 0)
    lines.push(`${label("")}${plural(test.undated, "report")} without a time in the period`);
  if (test.outOfRange > 0)
    lines.push(`${label("")}${plural(test.outOfRange, "score")} out of range (not in -100…100 %), left out`);
  return `${lines.join("\n")}\n`;
}

/** The flat columns of TSV and CSV: counts, statuses seen, statistics, the pass rate, histogram buckets. */
export function flatColumns(stats: readonly TestStats[]): Column[] {
  const statuses = [...FINAL_STATUSES];
  for (const test of stats)
    for (const status of Object.keys(test.statuses)) if (!statuses.includes(status)) statuses.push(status);
  // The same buckets for every test, even when there is none (a header still lists them).
  const buckets = histogram([]);
  const keys = ["testId", "testName", "from", "to", "attempts", "reports", "failedReports", "scored"];
  return [
    ...keys.map((key) => ({ key })),
    ...statuses.map((status) => ({
      key: `status_${status}`,
      get: (row: Row) => row[`status_${status}`] ?? 0,
    })),
    ...["mean", "median", "p10", "p90", "min", "max", "passMark", "passed", "passRate"].map((key) => ({
      key,
    })),
    ...buckets.map((b) => ({
      key: `score_${b.from}_${b.to}`,
      get: (row: Row) => row[`score_${b.from}_${b.to}`],
    })),
    ...["activeDays", "busiestDay", "undated", "outOfRange"].map((key) => ({ key })),
  ];
}

/** One test's flat row (the columns above read it by key). */
export function flatRow(test: TestStats): Row {
  const { statuses, histogram, perDay, failedReports, ...plain } = test;
  const row: Row = {
    ...plain,
    failedReports: failedReports.length,
    activeDays: perDay.filter((d) => d.count > 0).length,
    busiestDay: largest(perDay.map((d) => d.count)),
  };
  for (const [status, count] of Object.entries(statuses)) row[`status_${status}`] = count;
  for (const b of histogram) row[`score_${b.from}_${b.to}`] = b.count;
  return row;
}
