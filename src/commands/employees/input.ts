/** An employee file (CSV, .xlsx or a JSON array; `-` is standard input) as `employees upsert` and `sync` read it. */
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

export interface EmployeeInput {
  rows: Pick<BulkJob<Employee>, "read" | "splitCheck">;
  openRejects: () => Promise<RejectsSink>;
  inputName: string;
  locate?: (line: number) => string;
  /** How the input's rows are counted: lines of a text file, rows of a sheet. */
  unit: "line" | "row";
  noRows: string;
}

interface InputOptions {
  delimiter?: string;
  sheet?: string;
  rejects?: string;
  force?: boolean;
}

/** Opens the file (standard input copied aside first), hands it to `use`, and lets go of it afterwards. */
export async function withEmployees<R>(
  ctx: Context,
  file: string,
  o: InputOptions,
  use: (input: EmployeeInput) => Promise<R>,
): Promise<R> {
  const source = await inputFile(file, ctx.io.stdin, { jsonArrays: true });
  try {
    return await use(await openEmployees(ctx, source, o));
  } finally {
    source.close();
  }
}

async function openEmployees(ctx: Context, source: InputFile, o: InputOptions): Promise<EmployeeInput> {
  const force = o.force === true;
  const { json, name: file } = source;
  if (json) {
    if (o.sheet !== undefined) throw sheetWithoutWorkbook(file);
    const target = rejectsTarget(source.rejectsBeside, o.rejects, {
      force,
      dryRun: ctx.dryRun,
      extension: ".json",
    });
    return {
      rows: { read: employeeJsonEntries(source.path, file) },
      openRejects: async () => new JsonRejects(target, force),
      inputName: file,
      unit: "line",
      noRows: `${file}: an empty array: nothing to send`,
    };
  }
  // A workbook's rejected rows go to a CSV file (employees.rejects.csv), which can be fed back in as it is.
  const extension = isWorkbook(source.path) ? ".csv" : undefined;
  const target = rejectsTarget(source.rejectsBeside, o.rejects, { force, dryRun: ctx.dryRun, extension });
  const input = await openRows(source.path, {
    delimiter: o.delimiter,
    sheet: o.sheet,
    name: file,
    example: "email,firstName,lastName,externalEmployeeId,department",
  });
  const unit = input.sheet !== undefined ? "row" : "line";
  return {
    rows: csvRows(input, { rows: "employees", columns: employeeColumns(input) }),
    openRejects: async () => new CsvRejects(target, input.header, input.delimiter, force, unit),
    inputName: inputLabel(input),
    locate: (line) => rowPlace(input, line),
    unit,
    noRows: noRowsMessage(input),
  };
}
