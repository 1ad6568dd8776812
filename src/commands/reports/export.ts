import { once } from "node:events";
import { createWriteStream, existsSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import type { TestAttempt } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { ExitCode, UsageError } from "../../errors.js";
import { FORMATS, type Format } from "../../output/format.js";
import { Output, type Row } from "../../output/output.js";
import { id, int } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { periodFromOptions, periodOptions } from "../attempts/period.js";
import { exportColumns, exportRow } from "./export-rows.js";
import { fetchReports, finishedAttempts } from "./period-reports.js";

const FORMAT_OF_EXTENSION: Record<string, Format> = {
  ".csv": "csv",
  ".tsv": "tsv",
  ".json": "json",
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
};

export const options = z.object({
  ...periodOptions,
  test: id().optional(),
  out: z.string().optional(),
  force: z.boolean().optional(),
  concurrency: int(1, 32),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const period = await periodFromOptions(ctx, o);
  const { test: testId, concurrency } = o;
  const file = o.out !== undefined && o.out !== "-" ? o.out : undefined;
  if (file !== undefined && existsSync(file) && o.force !== true) {
    throw new UsageError(`${file} already exists`, "Pass --force to overwrite it, or choose another --out");
  }

  const client = await ctx.client();
  // Another account's test is refused here (403, exit 4) rather than silently exporting nothing.
  if (testId !== undefined) await client.tests.get(testId);

  const attempts = await finishedAttempts(ctx, client, period, testId === undefined ? [] : [testId]);
  const outcomes = await fetchReports(ctx, client, attempts, concurrency);

  const rows: Row[] = [];
  const failed: Array<{ attempt: TestAttempt; error: Error }> = [];
  for (const outcome of outcomes) {
    if ("report" in outcome) rows.push(exportRow(outcome.attempt, outcome.report));
    else failed.push(outcome);
  }
  const columns = exportColumns(rows);
  if (file === undefined) await ctx.out.list(rows, columns);
  else await writeExport(ctx, file, exportFormat(ctx, file), rows, columns);

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

/** `-o`/`--json` when given, else the file's extension, else CSV. */
function exportFormat(ctx: Context, file: string): Format {
  if (ctx.flags.json) return "json";
  if (ctx.flags.output && (FORMATS as readonly string[]).includes(ctx.flags.output))
    return ctx.flags.output as Format;
  return FORMAT_OF_EXTENSION[extname(file).toLowerCase()] ?? "csv";
}

/** Written beside the target and renamed into place, so a failed run never leaves half a file. */
async function writeExport(
  ctx: Context,
  file: string,
  format: Format,
  rows: Row[],
  columns: ReturnType<typeof exportColumns>,
) {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const stream = createWriteStream(temp);
  try {
    // A BOM makes spreadsheet programs read the file as UTF-8 (accented names stay intact).
    if (format === "csv") stream.write("\uFEFF");
    const out = new Output(stream, { format, fields: ctx.out.options.fields, color: false });
    await out.list(rows, columns);
    stream.end();
    await once(stream, "close");
    await rename(temp, file);
  } catch (error) {
    stream.destroy();
    await rm(temp, { force: true });
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string") throw error;
    throw new UsageError(
      `--out ${file}: cannot write it (${code})`,
      "Check that the folder exists and is writable.",
    );
  }
}
