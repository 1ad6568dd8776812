/** `reports export`: one flat row per finished attempt of a period, on stdout or in a file. */

import { createWriteStream } from "node:fs";
import { extname } from "node:path";
import { finished } from "node:stream/promises";
import type { Report, TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { periodReports } from "../../core/period-reports.js";
import { ExitCode, UsageError } from "../../errors.js";
import { AtomicFile, checkTarget, commitOrDiscard } from "../../files.js";
import { FORMATS, type Format } from "../../output/format.js";
import { type Column, Output, type Row } from "../../output/output.js";
import { flag } from "../shared/flags.js";
import { periodFlags, periodFromOptions, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const FORMAT_OF_EXTENSION: Record<string, Format> = {
  ".csv": "csv",
  ".tsv": "tsv",
  ".json": "json",
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
};

/** Spreadsheet files other than .xlsx: refused (exit 2) rather than written as text under their name. */
const OTHER_WORKBOOKS = new Set([".xls", ".xlsm", ".xlsb", ".ods", ".numbers"]);

/** A fixed column's value: the report's answer first, the attempt record filling what it leaves out. */
type Read = (attempt: TestAttempt, report: Report) => unknown;

const FIXED: Array<[key: string, header: string, read: Read]> = [
  ["testInvitationId", "Invitation ID", (a) => a.testInvitationId],
  ["candidateName", "Candidate", (a, r) => r.candidateName ?? a.name ?? null],
  ["candidateEmail", "Email", (a, r) => r.candidateEmail ?? a.email ?? null],
  ["testId", "Test ID", (a, r) => r.testId ?? a.testId ?? null],
  ["testName", "Test", (_, r) => r.testName ?? null],
  ["status", "Status", (a, r) => r.Status ?? a.teststatus ?? null],
  ["scorePercentage", "Score %", (_, r) => r.scorePercentage ?? null],
  ["candidatePoints", "Points", (_, r) => r.candidatePoints ?? null],
  ["totalTestPoints", "Out of", (_, r) => r.totalTestPoints ?? null],
  ["performanceCategory", "Performance", (_, r) => r.PerformanceCategory ?? null],
  ["attemptedOn", "Attempted on", (_, r) => r.attemptedOn ?? null],
];

/** The columns that hold dates: date cells in a workbook. */
const DATE_COLUMNS: ReadonlySet<string> = new Set(["attemptedOn"]);

const SECTION_PREFIX = "section:";

const flags = {
  ...periodFlags(
    "start of the period (YYYY-MM-DD, ISO with offset, 90d, now)",
    "end of the period (inclusive for a bare date)",
  ),
  test: flag.id("only this test's attempts"),
  out: flag.text(
    "<file>",
    "write to a file instead of stdout (format from -o, else the extension: .csv, .tsv, .json, .ndjson, or .xlsx for an Excel workbook; else csv)",
  ),
  force: flag.bool("overwrite an existing --out file"),
  concurrency: flag.int(1, 32, "reports fetched at once (1-32)").default("8"),
  yes: periodYes(),
};

export default verb({
  summary: "One flat row per attempt of a period: candidate, test, status, scores and sections",
  flags,
  examples: [
    "assess reports export --from 2026-10-01 --to 2026-10-31 -o csv --out october.csv",
    "assess reports export --from 30d --to now --test 1001 -o ndjson",
    "assess reports export --from 30d --to now --out results.xlsx   # an Excel workbook",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const file = o.out !== undefined && o.out !== "-" ? o.out : undefined;
  // Checked before anything is sent: what the file will hold, and that nothing is overwritten unasked.
  const format = file === undefined ? undefined : exportFormat(ctx, file);
  if (file !== undefined) checkTarget(file, { option: "--out", force: o.force === true });
  const period = await periodFromOptions(ctx, o);
  const tests = o.test === undefined ? [] : [o.test];
  const { attempts, outcomes } = await periodReports(
    ctx,
    (await ctx.client()).api,
    period,
    tests,
    o.concurrency,
  );

  const rows = outcomes.flatMap((outcome) =>
    "report" in outcome ? [exportRow(outcome.attempt, outcome.report)] : [],
  );
  const failed = outcomes.filter((outcome) => "error" in outcome);
  const columns = exportColumns(rows);
  if (file === undefined || format === undefined) await ctx.out.list(rows, columns);
  else await writeExport(ctx, file, o.force === true, format, rows, columns);

  const where = file === undefined ? "" : ` to ${file}`;
  if (failed.length === 0) {
    ctx.success(`Exported ${rows.length} attempt${rows.length === 1 ? "" : "s"}${where}`);
    return 0;
  }
  ctx.warn(
    `Exported ${rows.length} of ${attempts.length} attempts${where}; ${failed.length} report(s) could not be fetched:`,
  );
  for (const { attempt, error } of failed) ctx.info(`  ${attempt.testInvitationId}: ${error.message}`);
  ctx.info(`Retry them one by one with \`assess reports get <id>\`, or run the export again.`);
  return ExitCode.partial;
}

function exportRow(attempt: TestAttempt, report: Report): Row {
  const row: Row = Object.fromEntries(FIXED.map(([key, , read]) => [key, read(attempt, report)]));
  for (const section of report.sections ?? []) {
    const name = section.sectionName ?? `Section ${section.sectionId ?? "?"}`;
    row[`${SECTION_PREFIX}${name}`] = section.candidateScore ?? null;
  }
  return row;
}

/**
 * The fixed columns, then every section seen in first-seen order, so tests with different sections share one
 * sheet. Keys may hold dots (`Node.js`), so values are read by key, never as a path.
 */
function exportColumns(rows: Row[]): Column[] {
  const sections = new Set<string>();
  for (const row of rows)
    for (const key of Object.keys(row)) if (key.startsWith(SECTION_PREFIX)) sections.add(key);
  const byKey = (key: string, header: string) => ({ key, header, get: (row: Row) => row[key] });
  return [
    ...FIXED.map(([key, header]) => byKey(key, header)),
    ...[...sections].map((key) => byKey(key, `Section: ${key.slice(SECTION_PREFIX.length)}`)),
  ];
}

/** `-o`/`--json` when given, else the file's extension, else CSV; `.xlsx` (a workbook) refuses `-o`. */
function exportFormat(ctx: Context, file: string): Format | "xlsx" {
  const extension = extname(file).toLowerCase();
  const asked = ctx.flags.json
    ? "json"
    : ctx.flags.output && (FORMATS as readonly string[]).includes(ctx.flags.output)
      ? (ctx.flags.output as Format)
      : undefined;
  if (extension === ".xlsx") {
    if (asked !== undefined) {
      throw new UsageError(
        `--out ${file} names an Excel workbook, but -o ${asked} asks for ${asked} text`,
        `Drop -o to write a workbook, or name the file .${asked}.`,
      );
    }
    return "xlsx";
  }
  if (OTHER_WORKBOOKS.has(extension)) {
    throw new UsageError(
      `--out ${file}: assess writes no ${extension} files`,
      "Name it .xlsx for an Excel workbook, or .csv for a spreadsheet of any kind.",
    );
  }
  return asked ?? FORMAT_OF_EXTENSION[extension] ?? "csv";
}

/** Written beside the target and moved into place (AtomicFile), so a failed run never leaves half a file. */
async function writeExport(
  ctx: Context,
  path: string,
  force: boolean,
  format: Format | "xlsx",
  rows: Row[],
  columns: Column[],
) {
  try {
    const file = new AtomicFile(path, force);
    await commitOrDiscard(file, () => fillExport(ctx, file, format, rows, columns));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string") throw error;
    throw new UsageError(
      `--out ${path}: cannot write it (${code})`,
      "Check that the folder exists and is writable.",
    );
  }
}

async function fillExport(
  ctx: Context,
  file: AtomicFile,
  format: Format | "xlsx",
  rows: Row[],
  columns: Column[],
): Promise<void> {
  if (format === "xlsx") {
    // The workbook writer, a large library, is loaded for this alone.
    const { workbookBytes } = await import("./export-xlsx.js");
    file.write(await workbookBytes(rows, ctx.out.columns(columns, rows[0]), DATE_COLUMNS));
    return;
  }
  // The descriptor stays the file's: flushed and closed by its commit, or closed by its discard.
  const stream = createWriteStream("", { fd: file.fd, autoClose: false });
  // A failed write is the error `finished` rejects with below.
  stream.on("error", () => {});
  // A BOM makes spreadsheet programs read the file as UTF-8 (accented names stay intact).
  if (format === "csv") stream.write("\uFEFF");
  await new Output(stream, { format, fields: ctx.out.options.fields, color: false }).list(rows, columns);
  stream.end();
  await finished(stream);
}
