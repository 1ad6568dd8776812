/** An employee file (CSV, .xlsx or a JSON array) as `employees upsert` and `employees sync` read it. */
import type { BulkJob } from "../../bulk/engine/run.js";
import type { RejectsSink } from "../../bulk/engine/types.js";
import { inputLabel, rowPlace } from "../../bulk/rows/columns.js";
import { noRowsMessage } from "../../bulk/rows/csv.js";
import { type Employee, employeeColumns, employeeJsonEntries } from "../../bulk/rows/employees.js";
import { isWorkbook, openRows, sheetWithoutWorkbook } from "../../bulk/rows/open.js";
import { CsvRejects, JsonRejects, rejectsTarget } from "../../bulk/rows/rejects.js";
import { csvRows } from "../../bulk/rows/split-check.js";
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

export async function openEmployees(
  ctx: Context,
  file: string,
  o: { delimiter?: string; sheet?: string; rejects?: string; force?: boolean },
): Promise<EmployeeInput> {
  const force = o.force === true;
  if (/\.json$/i.test(file)) {
    if (o.sheet !== undefined) throw sheetWithoutWorkbook(file);
    const path = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun, extension: ".json" });
    return {
      rows: { read: employeeJsonEntries(file, file) },
      openRejects: async () => new JsonRejects(path, force),
      inputName: file,
      unit: "line",
      noRows: `${file}: an empty array: nothing to send`,
    };
  }
  // A workbook's rejected rows go to a CSV file (employees.rejects.csv), which can be fed back in as it is.
  const extension = isWorkbook(file) ? ".csv" : undefined;
  const path = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun, extension });
  const input = await openRows(file, { delimiter: o.delimiter, sheet: o.sheet });
  const unit = input.sheet !== undefined ? "row" : "line";
  return {
    rows: csvRows(input, { rows: "employees", columns: employeeColumns(input) }),
    openRejects: async () => new CsvRejects(path, input.header, input.delimiter, force, unit),
    inputName: inputLabel(input),
    locate: (line) => rowPlace(input, line),
    unit,
    noRows: noRowsMessage(input),
  };
}
