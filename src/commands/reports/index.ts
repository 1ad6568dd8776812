import { type Command, Option } from "commander";
import { examples, type GroupSetup, PERIOD_YES } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  const reports = group;

  examples(
    reports
      .command("get")
      .description("Show the report of one attempt")
      .argument("<testInvitationId>", "the attempt's id")
      .addOption(new Option("--type <n>", "1 = by section, 2 = by skill, 3 = both").choices(["1", "2", "3"]))
      .action(lazy(() => import("./get.js"))),
    ["assess reports get 50123", "assess reports get 50123 --type 3 --json"],
  );

  examples(
    reports
      .command("pdf")
      .description("Save the PDF report of one attempt, or write it to a redirected stdout")
      .argument("<testInvitationId>", "the attempt's id")
      .option(
        "--out <file.pdf>",
        "where to save it; `-` is stdout (default: stdout when it is redirected or piped, else report-<id>.pdf)",
      )
      .option("--force", "overwrite an existing file")
      .action(lazy(() => import("./pdf.js"))),
    [
      "assess reports pdf 50123",
      "assess reports pdf 50123 > report.pdf",
      "assess reports pdf 50123 --out r.pdf",
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
        "write to a file instead of stdout (format from -o, else the extension, else csv)",
      )
      .option("--force", "overwrite an existing --out file")
      .option("--concurrency <n>", "reports fetched at once (1-32)", "8")
      .option(...PERIOD_YES)
      .action(lazy(() => import("./export.js"))),
    [
      "assess reports export --from 2026-10-01 --to 2026-10-31 -o csv --out october.csv",
      "assess reports export --from 30d --to now --test 1001 -o ndjson",
    ],
  );
}
