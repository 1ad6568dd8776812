import { type Command, Option } from "commander";
import { collectList, examples, type GroupSetup, PERIOD_YES } from "../shared/verbs.js";

export function register(reports: Command, { lazy }: GroupSetup): void {
  const ofAttempt = (name: string) =>
    reports.command(name).argument("<testInvitationId>", "the attempt's id");

  examples(
    ofAttempt("get")
      .description("Show the report of one attempt")
      .addOption(new Option("--type <n>", "1 = by section, 2 = by skill, 3 = both").choices(["1", "2", "3"]))
      .action(lazy(() => import("./get.js"))),
    ["assess reports get 100001", "assess reports get 100001 --type 3 --json"],
  );

  examples(
    ofAttempt("pdf")
      .description("Save the PDF report of one attempt, or write it to a redirected stdout")
      .option(
        "--out <file.pdf>",
        "where to save it; `-` is stdout (default: stdout when it is redirected or piped, else report-<id>.pdf)",
      )
      .option("--force", "overwrite an existing file")
      .action(lazy(() => import("./pdf.js"))),
    [
      "assess reports pdf 100001",
      "assess reports pdf 100001 > report.pdf",
      "assess reports pdf 100001 --out r.pdf",
    ],
  );

  examples(
    reports
      .command("export")
      .description("One flat row per attempt of a period: candidate, test, status, scores and sections")
      .option("--from <date>", "start of the period (YYYY-MM-DD, ISO with offset, 90d, now)")
      .option("--to <date>", "end of the period (inclusive for a bare date)")
      .option("--test <id>", "only this test's attempts")
      .option(
        "--out <file>",
        "write to a file instead of stdout (format from -o, else the extension: .csv, .tsv, .json, .ndjson, or .xlsx for an Excel workbook; else csv)",
      )
      .option("--force", "overwrite an existing --out file")
      .option("--concurrency <n>", "reports fetched at once (1-32)", "8")
      .option(...PERIOD_YES)
      .action(lazy(() => import("./export.js"))),
    [
      "assess reports export --from 2026-10-01 --to 2026-10-31 -o csv --out october.csv",
      "assess reports export --from 30d --to now --test 1001 -o ndjson",
      "assess reports export --from 30d --to now --out results.xlsx   # an Excel workbook",
    ],
  );

  examples(
    reports
      .command("stats")
      .description(
        "Per test, a period's finished attempts: statuses, score mean, median, p10/p90, pass rate, a score histogram and attempts per day",
      )
      .option("--from <date>", "start of the period (YYYY-MM-DD, ISO with offset, 90d, now)")
      .option("--to <date>", "end of the period (inclusive for a bare date)")
      .option("--test <id>", "only this test (repeatable, or comma-separated)", collectList)
      .option("--pass-mark <n>", "a score percentage (0-100) at or above which an attempt passes")
      .option("--concurrency <n>", "reports fetched at once (1-32)", "8")
      .option(...PERIOD_YES)
      .addHelpText(
        "after",
        // One line per paragraph: commander's output wraps them to the terminal (src/output/wrap.ts).
        `
Scores are the reports' score percentages (else points out of the total), of every finished attempt, whatever its status. p10, median and p90 are percentiles by linear interpolation between the two nearest ranks, as numpy.percentile's default: with n scores sorted ascending x[0..n-1], the p-th is found at rank h = (n-1)·p/100, and is x[⌊h⌋] + (h-⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]). Statistics and the pass rate are rounded to 2 decimals, the same in every format (--json passRate 0.61 is the table's 61%). A score outside -100…100 % is counted apart (outOfRange), in no statistic.
The pass rate is the share of scored attempts at or above --pass-mark (the service's reports and tests carry no documented pass mark, so without the flag there is none). The histogram buckets are 10 points wide: 0-<10 … 90-100 (100 itself in the last). Per day counts attempts by the UTC day they finished (their report's completedOn, else attemptedOn), within the period: a report dated outside it (.NET's 0001-01-01) counts as undated; the sparkline scales ▁…█ to the busiest day, ▁ is none.
Output: a block per test on a terminal; --json / -o ndjson one object per test (statuses, statistics, histogram, perDay, failedReports); -o csv and tsv one flat row per test.
A report that cannot be fetched is named on stderr and listed under failedReports, and the others are still counted: exit 0, or 1 when every report of the period failed.`,
      )
      .action(lazy(() => import("./stats.js"))),
    [
      "assess reports stats --from 30d --to now",
      "assess reports stats --from 2026-10-01 --to 2026-12-31 --test 1001 --pass-mark 60",
      "assess reports stats --from 90d --to now --test 1001,1002 --pass-mark 60 --json | jq '.[] | {testId, median, passRate}'",
      "assess reports stats --from 90d --to now -o csv > stats.csv",
    ],
  );
}
