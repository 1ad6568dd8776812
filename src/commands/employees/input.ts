/** An employee file (CSV, .xlsx or a JSON array; `-` is stdin) as `employees upsert` and `sync` read and send it. */
import { inputLabel, rowPlace } from "../../bulk/rows/columns.js";
import { noRowsMessage } from "../../bulk/rows/csv.js";
import { type Employee, employeeColumns, employeeJsonEntries } from "../../bulk/rows/employees.js";
import {
  type InputFile,
  inputFile,
  isWorkbook,
  openRows,
  sheetWithoutWorkbook,
} from "../../bulk/rows/open.js";
import { CsvRejects, JsonRejects, rejectsTarget } from "../../bulk/rows/rejects.js";
import { csvRows } from "../../bulk/speedups/split-check.js";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
import { readUpsertAnswer } from "../../sdk/bulk.js";
import { MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import { bulkFileOptions } from "../shared/bulk-options.js";
import type { Wording } from "../shared/bulk-report.js";
import { type CommandJob, ledgerTarget } from "../shared/bulk-run.js";

export type EmployeeInput = Awaited<ReturnType<typeof openEmployees>>;

// --concurrency defaults to 8 (index.ts): requests of 100 employees are small, more in flight hide the latency.
export const fileOptions = z.object(bulkFileOptions(MAX_UPSERT_EMPLOYEES));
type FileOptions = z.infer<typeof fileOptions>;

/** Opens the file (standard input copied aside first), hands it to `use`, and lets go of it afterwards. */
export async function withEmployees<R>(
  ctx: Context,
  file: string,
  o: FileOptions,
  use: (input: EmployeeInput) => Promise<R>,
): Promise<R> {
  const source = await inputFile(file, ctx.io.stdin, { jsonArrays: true });
  try {
    return await use(await openEmployees(ctx, source, o));
  } finally {
    source.close();
  }
}

async function openEmployees(ctx: Context, source: InputFile, o: FileOptions) {
  const force = o.force === true;
  const { json, name: file } = source;
  if (json && o.sheet !== undefined) throw sheetWithoutWorkbook(file);
  // A workbook's rejected rows go to a CSV file (employees.rejects.csv), which can be fed back in as it is.
  const extension = json ? ".json" : isWorkbook(source.path) ? ".csv" : undefined;
  const target = rejectsTarget(source.rejectsBeside, o.rejects, { force, dryRun: ctx.dryRun, extension });
  if (json) {
    return {
      rows: { read: employeeJsonEntries(source.path, file) },
      openRejects: async () => new JsonRejects(target, force),
      inputName: file,
      locate: (line: number) => `${file}:${line}`,
      unit: "line",
      noRows: `${file}: an empty array: nothing to send`,
    };
  }
  const input = await openRows(source.path, {
    delimiter: o.delimiter,
    sheet: o.sheet,
    name: file,
    example: "email,firstName,lastName,externalEmployeeId,department",
  });
  // How the input's rows are counted: lines of a text file, rows of a sheet.
  const unit = input.sheet !== undefined ? "row" : "line";
  return {
    rows: csvRows(input, { rows: "employees", columns: employeeColumns(input) }),
    openRejects: async () => new CsvRejects(target, input.header, input.delimiter, force, unit),
    inputName: inputLabel(input),
    locate: (line: number) => rowPlace(input, line),
    unit,
    noRows: noRowsMessage(input),
  };
}

/** The bulk job of both commands but its rows: chunks of checked, serialized rows to the upsert operation. */
export async function upsertJob(
  ctx: Context,
  o: FileOptions,
  input: EmployeeInput,
  kind: "upsert" | "sync",
): Promise<Omit<CommandJob<Employee>, "read">> {
  const client = await ctx.client();
  const { baseUrl, key } = await ledgerTarget(ctx, "skills");
  return {
    kind,
    inputName: input.inputName,
    locate: input.locate,
    noRowsMessage: input.noRows,
    target: () => ({ baseUrl, key }),
    chunkSize: o.chunkSize,
    maxChunk: MAX_UPSERT_EMPLOYEES,
    concurrency: o.concurrency,
    skipInvalid: o.skipInvalid === true,
    restart: o.restart === true,
    retryUncertain: o.retryUncertain === true,
    rejects: input.openRejects,
    send: async (_group, rows) => readUpsertAnswer(rows, await client.api.upsertEmployees(rows)),
  };
}

export function upsertWording(input: EmployeeInput): Wording {
  return {
    verb: "Upserted",
    noun: ["employee", "employees"],
    inputName: input.inputName,
    locate: input.locate,
  };
}
