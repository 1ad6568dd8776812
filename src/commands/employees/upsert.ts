import type { BulkJob } from "../../bulk/engine/run.js";
import type { RejectsSink } from "../../bulk/engine/types.js";
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
import { ledgerTarget, runAndReport } from "../shared/bulk-run.js";

/** --concurrency defaults to 8 (index.ts): requests of 100 employees are small and many, more in flight hide the latency. */
export const options = z.object({ ...bulkFileOptions(MAX_UPSERT_EMPLOYEES) });
export const args = z.tuple([z.string()]);

export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [file]: z.infer<typeof args>,
): Promise<number> {
  const source = await inputFile(file, ctx.io.stdin, { jsonArrays: true });
  try {
    return await upsert(ctx, o, source);
  } finally {
    source.close();
  }
}

async function upsert(ctx: Context, o: z.infer<typeof options>, source: InputFile): Promise<number> {
  const { chunkSize, concurrency } = o;
  const { json, name: file } = source;
  const force = o.force === true;

  let rows: Pick<BulkJob<Employee>, "read" | "splitCheck">;
  let openRejects: () => Promise<RejectsSink>;
  let inputName = file;
  let locate: ((line: number) => string) | undefined;
  let unit: "line" | "row" = "line";
  let noRows = `${file}: an empty array: nothing to send`;
  if (json) {
    if (o.sheet !== undefined) throw sheetWithoutWorkbook(file);
    const target = rejectsTarget(source.rejectsBeside, o.rejects, {
      force,
      dryRun: ctx.dryRun,
      extension: ".json",
    });
    rows = { read: employeeJsonEntries(source.path, file) };
    openRejects = async () => new JsonRejects(target, force);
  } else {
    // A workbook's rejected rows go to a CSV file (employees.rejects.csv), which can be fed back in as it is.
    const extension = isWorkbook(source.path) ? ".csv" : undefined;
    const target = rejectsTarget(source.rejectsBeside, o.rejects, { force, dryRun: ctx.dryRun, extension });
    const input = await openRows(source.path, {
      delimiter: o.delimiter,
      sheet: o.sheet,
      name: file,
      example: "email,firstName,lastName,externalEmployeeId,department",
    });
    inputName = inputLabel(input);
    locate = (line) => rowPlace(input, line);
    if (input.sheet !== undefined) unit = "row";
    noRows = noRowsMessage(input);
    rows = csvRows(input, { rows: "employees", columns: employeeColumns(input) });
    openRejects = async () => new CsvRejects(target, input.header, input.delimiter, force, unit);
  }

  const client = await ctx.client();
  const { baseUrl: skillsBaseUrl, key } = await ledgerTarget(ctx, "skills");
  return runAndReport<Employee>(
    ctx,
    {
      kind: "upsert",
      inputName,
      locate,
      noRowsMessage: noRows,
      ...rows,
      target: () => ({ baseUrl: skillsBaseUrl, key }),
      chunkSize,
      maxChunk: MAX_UPSERT_EMPLOYEES,
      concurrency,
      skipInvalid: o.skipInvalid === true,
      restart: o.restart === true,
      retryUncertain: o.retryUncertain === true,
      rejects: openRejects,
      // Two rows of one employee that differ: which one should the service keep? Neither is sent.
      conflictReason: (line) =>
        `conflicts with ${unit} ${line}: the same e-mail with other values (one row per employee)`,
      // The SDK's upsert takes items; the engine's rows are already checked and serialized, so they go
      // through the same request function (client.api) and the same reading of its answer.
      send: async (_group, rows) => readUpsertAnswer(rows, await client.api.upsertEmployees(rows)),
    },
    { verb: "Upserted", noun: ["employee", "employees"], inputName, locate },
  );
}
