/**
 * A bulk run's input file as `invite bulk`, `employees upsert` and `sync` take it: its flags, opening it
 * (standard input copied aside), where its rejected rows go, how messages name it and its rows.
 */
import { inputLabel, rowPlace } from "../../bulk/rows/columns.js";
import { noRowsMessage, parseDelimiter } from "../../bulk/rows/csv.js";
import { type InputFile, inputFile, isWorkbook, openRows } from "../../bulk/rows/open.js";
import { CsvRejects, rejectsTarget } from "../../bulk/rows/rejects.js";
import type { Context } from "../../context.js";
import { parsed } from "../../parse/flags.js";
import { flag } from "./flags.js";
import type { OptionsOf } from "./verb.js";

/** The most requests a bulk run keeps in flight (`--concurrency`). */
const MAX_CONCURRENCY = 16;

/**
 * The flags of every bulk run over a file (`flags: { ...bulkFileFlags("candidates", MAX, 4), ... }`): `noun`
 * per request, at most `maxChunk` (the service's limit: `--chunk-size` may lower it, never raise it).
 */
export function bulkFileFlags(noun: string, maxChunk: number, concurrency: number) {
  return {
    chunkSize: flag.int(1, maxChunk, `${noun} per request (1-${maxChunk})`).default(String(maxChunk)),
    concurrency: flag
      .int(1, MAX_CONCURRENCY, "requests in flight at once (fewer while the service answers 429)")
      .default(String(concurrency)),
    skipInvalid: flag.bool("send the valid rows and write the invalid ones to the rejects file"),
    rejects: flag.text(
      "<file.csv>",
      "where rejected rows go (default: beside the file, <file>.rejects.csv, or .json for a JSON array; stdin.rejects.csv for -; -2, -3… when an earlier run's is there and holds other rows)",
    ),
    force: flag.bool(
      "overwrite an existing --rejects file, or the default one (a link there is replaced; its target is left alone)",
    ),
    delimiter: flag.of(
      "<char>",
      "CSV delimiter (default: detected among , ; and tab)",
      parsed((text) => parseDelimiter(text) as string),
    ),
    sheet: flag.text("<name>", "the sheet of an .xlsx workbook to read (default: its first)"),
    restart: flag.bool("ignore the ledger of earlier runs and send everything again"),
    retryUncertain: flag.bool("send again the rows whose earlier request got no answer"),
  };
}

/** What `bulkFileFlags` read. */
type BulkFileFlags = OptionsOf<ReturnType<typeof bulkFileFlags>>;

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
    rejectsNamed: target.named && !force ? target.path : undefined,
  };
}
