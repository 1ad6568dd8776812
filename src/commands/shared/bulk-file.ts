/**
 * A bulk run's input file as `invite bulk`, `employees upsert` and `sync` take it: its flags, opening it
 * (standard input copied aside), where its rejected rows go, how messages name it and its rows.
 */
import { inputLabel, rowPlace } from "../../bulk/rows/columns.js";
import { noRowsMessage, parseDelimiter } from "../../bulk/rows/csv.js";
import { type InputFile, inputFile, isWorkbook, openRows } from "../../bulk/rows/open.js";
import { CsvRejects, rejectsTarget } from "../../bulk/rows/rejects.js";
import type { Context } from "../../context.js";
import { int, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";

/** The most requests a bulk run keeps in flight (`--concurrency`). */
const MAX_CONCURRENCY = 16;

/** The options of every bulk run over a file: `z.object({ ...bulkFileOptions(MAX), ... })`. */
export function bulkFileOptions(maxChunk: number) {
  return {
    // `--chunk-size` may lower the service's limit per request, never raise it.
    chunkSize: int(1, maxChunk),
    concurrency: int(1, MAX_CONCURRENCY),
    skipInvalid: z.boolean().optional(),
    rejects: z.string().optional(),
    force: z.boolean().optional(),
    delimiter: parsed((text) => parseDelimiter(text) as string).optional(),
    sheet: z.string().optional(),
    restart: z.boolean().optional(),
    retryUncertain: z.boolean().optional(),
  };
}

/** What `bulkFileOptions` parse to. */
type BulkFileFlags = z.infer<ReturnType<typeof z.object<ReturnType<typeof bulkFileOptions>>>>;

/** The job's settings its flags give: rows per request, requests in flight, what to skip, resend or start over. */
export function bulkFlags(o: BulkFileFlags, maxChunk: number) {
  return {
    chunkSize: o.chunkSize,
    maxChunk,
    concurrency: o.concurrency,
    skipInvalid: o.skipInvalid === true,
    restart: o.restart === true,
    retryUncertain: o.retryUncertain === true,
  };
}

/** Opens the file (standard input copied aside first), hands it to `use`, and lets go of it afterwards. */
export async function withInputFile<R>(
  ctx: Context,
  file: string,
  use: (source: InputFile) => Promise<R>,
  options: { jsonArrays?: boolean } = {},
): Promise<R> {
  const source = await inputFile(file, ctx.io.stdin, options);
  try {
    return await use(source);
  } finally {
    source.close();
  }
}

/**
 * A CSV file or an .xlsx sheet opened for a bulk job: its rows (`input`), where its rejected rows go, and how
 * messages name it and its rows. `example` is the header an empty file's hint shows.
 */
export async function openBulkFile(ctx: Context, source: InputFile, o: BulkFileFlags, example: string) {
  const force = o.force === true;
  // A workbook's rejected rows go to a CSV file (x.rejects.csv), which can be fed back in as it is.
  const target = rejectsTarget(source.rejectsBeside, o.rejects, {
    force,
    dryRun: ctx.dryRun,
    extension: isWorkbook(source.path) ? ".csv" : undefined,
  });
  const input = await openRows(source.path, {
    delimiter: o.delimiter,
    sheet: o.sheet,
    name: source.name,
    example,
  });
  // How the input's rows are counted: lines of a text file, rows of a sheet.
  const unit = input.sheet === undefined ? "line" : "row";
  return {
    input,
    unit,
    inputName: inputLabel(input),
    locate: (line: number) => rowPlace(input, line),
    noRows: noRowsMessage(input),
    rejects: async () => new CsvRejects(target, input.header, input.delimiter, force, unit),
  };
}
