/**
 * `reports stats`: per test, the statuses and scores of a period's finished attempts, shown as a block per test
 * on a terminal and a flat row per test in TSV/CSV. A report that cannot be fetched is named without stopping
 * the others: exit 0, or 1 when every report failed (nothing to describe).
 */
import { largest } from "../../arrays.js";
import type { Context } from "../../context.js";
import { statsOfPeriod, type TestStats } from "../../core/stats.js";
import { bar, groupSums, histogram, sparkline } from "../../core/stats-math.js";
import { ExitCode, UsageError } from "../../errors.js";
import { escapeControls } from "../../escape.js";
import type { Column, Row } from "../../output/output.js";
import type { Style } from "../../output/style.js";
import { FLAG } from "../../parse/flag.js";
import { id, parsed } from "../../parse/flags.js";
import { FINAL_STATUSES } from "../../spec/final-statuses.js";
import { flag } from "../shared/flags.js";
import { periodFlags, periodFromOptions, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";

/** A score percentage from 0 to 100, decimals allowed (`--pass-mark 62.5`). */
const passMark = () =>
  parsed((text) => {
    const value = Number(text.trim());
    if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 100) {
      throw new UsageError(`${FLAG} must be a score percentage from 0 to 100, got "${text}"`);
    }
    return value;
  });

const flags = {
  ...periodFlags(
    "start of the period (YYYY-MM-DD, ISO with offset, 90d, now)",
    "end of the period (inclusive for a bare date)",
  ),
  test: flag.list("<id>", "only this test (repeatable, or comma-separated)", id()),
  passMark: flag.of("<n>", "a score percentage (0-100) at or above which an attempt passes", passMark()),
  concurrency: flag.int(1, 32, "reports fetched at once (1-32)").default("8"),
  yes: periodYes(),
};

export default verb({
  summary:
    "Per test, a period's finished attempts: statuses, score mean, median, p10/p90, pass rate, a score histogram and attempts per day",
  flags,
  // One line per paragraph: commander's output wraps them to the terminal (src/output/wrap.ts).
  notes: `Scores are the reports' score percentages (else points out of the total), of every finished attempt, whatever its status. p10, median and p90 are percentiles by linear interpolation between the two nearest ranks, as numpy.percentile's default: with n scores sorted ascending x[0..n-1], the p-th is found at rank h = (n-1)·p/100, and is x[⌊h⌋] + (h-⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]). Statistics and the pass rate are rounded to 2 decimals, the same in every format (--json passRate 0.61 is the table's 61%). A score outside -100…100 % is counted apart (outOfRange), in no statistic.
The pass rate is the share of scored attempts at or above --pass-mark (the service's reports and tests carry no documented pass mark, so without the flag there is none). The histogram buckets are 10 points wide: 0-<10 … 90-100 (100 itself in the last). Per day counts attempts by the UTC day they finished (their report's completedOn, else attemptedOn), within the period: a report dated outside it (.NET's 0001-01-01) counts as undated; the sparkline scales ▁…█ to the busiest day, ▁ is none.
Output: a block per test on a terminal; --json / -o ndjson one object per test (statuses, statistics, histogram, perDay, failedReports); -o csv and tsv one flat row per test.
A report that cannot be fetched is named on stderr and listed under failedReports, and the others are still counted: exit 0, or 1 when every report of the period failed.`,
  examples: [
    "assess reports stats --from 30d --to now",
    "assess reports stats --from 2026-10-01 --to 2026-12-31 --test 1001 --pass-mark 60",
    "assess reports stats --from 90d --to now --test 1001,1002 --pass-mark 60 --json | jq '.[] | {testId, median, passRate}'",
    "assess reports stats --from 90d --to now -o csv > stats.csv",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const period = await periodFromOptions(ctx, o);
  const { stats, attempts, outcomes } = await statsOfPeriod(ctx, (await ctx.client()).api, period, {
    testIds: o.test,
    passMark: o.passMark,
    concurrency: o.concurrency,
  });

  const out = ctx.out;
  if (out.format === "table" && !out.options.fields) {
    const width = out.options.width || 80;
    if (stats.length > 0) out.write(stats.map((test) => renderTest(test, out.style, width)).join("\n"));
  } else if (out.isJson) {
    await out.list(stats, [{ key: "testId" }, { key: "testName" }]);
  } else {
    await out.list(stats.map(flatRow), flatColumns(stats));
  }

  const failed = stats.flatMap((test) => test.failedReports);
  if (attempts.length === 0) ctx.info("No finished attempts in that period.");
  if (failed.length === 0) return 0;
  ctx.warn(
    `${failed.length} of ${attempts.length} report(s) could not be fetched; the numbers leave them out (their statuses are the listing's):`,
  );
  for (const { testInvitationId, error } of failed) ctx.info(`  ${testInvitationId}: ${error}`);
  ctx.info("See one with `assess reports get <id>`, or run the stats again.");
  return failed.length === outcomes.length ? ExitCode.failure : 0;
}

const HISTOGRAM_WIDTH = 30;
/** Marks of a sparkline at most, whatever the terminal's width: a quarter of a year, a day a mark. */
const MAX_SPARKLINE = 92;

// The numbers as --json has them (rounded once, in core/stats.ts): the same in every format.
const num = (n: number | null) => (n === null ? "–" : String(n));
const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A label and items joined by " · " (or `separator`), going on under the first where a line would pass `width`. */
function items(label: string, texts: string[], width: number, separator = " · "): string {
  const lines: string[][] = [[]];
  for (const text of texts) {
    const line = lines.at(-1)!;
    if (line.length > 0 && label.length + [...line, text].join(separator).length > width) lines.push([text]);
    else line.push(text);
  }
  return lines
    .map((line, i) => (i === 0 ? label : " ".repeat(label.length)) + line.join(separator))
    .join("\n");
}

/** One test's block, as text for a terminal `width` columns wide. */
function renderTest(test: TestStats, style: Style, width: number): string {
  const label = (text: string) => `  ${text.padEnd(11)}`;
  const name = test.testName === null ? "" : ` · ${escapeControls(test.testName)}`;
  const failed = test.failedReports.length;
  const lines = [
    style.bold(`Test ${test.testId ?? "(none)"}${name}`),
    `${label("Attempts")}${plural(test.attempts, "finished attempt")} · ${plural(test.reports, "report")}` +
      (failed > 0 ? ` · ${failed} failed` : ""),
  ];
  const statuses = Object.entries(test.statuses).map(
    ([status, count]) => `${escapeControls(status)} ${count}`,
  );
  if (statuses.length > 0) lines.push(items(label("Status"), statuses, width));
  if (test.scored === 0) {
    lines.push(`${label("Score %")}no scores`);
    return `${lines.join("\n")}\n`;
  }
  const scores = (["mean", "median", "p10", "p90", "min", "max"] as const).map(
    (name) => `${name} ${num(test[name])}`,
  );
  lines.push(items(label("Score %"), scores, width));
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
  const labelWidth = largest(bucketLabels.map((l) => l.length));
  test.histogram.forEach(({ count }, i) => {
    const drawn = bar(count, maxCount, HISTOGRAM_WIDTH).padEnd(HISTOGRAM_WIDTH);
    lines.push(`    ${bucketLabels[i]!.padStart(labelWidth)} │${drawn} ${count}`);
  });

  if (test.perDay.length > 0) {
    // Wider periods than the terminal: each mark sums a run of days.
    const room = Math.min(MAX_SPARKLINE, Math.max(10, width - 15));
    const size = Math.ceil(test.perDay.length / room);
    const counts = test.perDay.map((d) => d.count);
    const each = size === 1 ? "" : `, each mark ${size} days`;
    lines.push(`${label("Per day")}${sparkline(groupSums(counts, size))}`);
    const range = `${test.perDay[0]!.date} … ${test.perDay.at(-1)!.date}`;
    lines.push(items(label(""), [range, `(busiest day ${largest(counts)}${each})`], width, " "));
  }
  if (test.undated > 0)
    lines.push(`${label("")}${plural(test.undated, "report")} without a time in the period`);
  if (test.outOfRange > 0)
    lines.push(`${label("")}${plural(test.outOfRange, "score")} out of range (not in -100…100 %), left out`);
  return `${lines.join("\n")}\n`;
}

/** The flat columns of TSV and CSV: counts, statuses seen, statistics, the pass rate, histogram buckets. */
function flatColumns(stats: readonly TestStats[]): Column[] {
  const statuses = [...new Set([...FINAL_STATUSES, ...stats.flatMap((test) => Object.keys(test.statuses))])];
  // The same buckets for every test, even when there is none (a header still lists them).
  const buckets = histogram([]).map((b) => `score_${b.from}_${b.to}`);
  const plain = (keys: string[]) => keys.map((key) => ({ key }));
  return [
    ...plain(["testId", "testName", "from", "to", "attempts", "reports", "failedReports", "scored"]),
    ...statuses.map((status) => ({
      key: `status_${status}`,
      get: (row: Row) => row[`status_${status}`] ?? 0,
    })),
    ...plain(["mean", "median", "p10", "p90", "min", "max", "passMark", "passed", "passRate", ...buckets]),
    ...plain(["activeDays", "busiestDay", "undated", "outOfRange"]),
  ];
}

/** One test's flat row (the columns above read it by key). */
function flatRow(test: TestStats): Row {
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
