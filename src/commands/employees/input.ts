/** An employee file (CSV, .xlsx or a JSON array; `-` is stdin) as `employees upsert` and `sync` read and send it. */

import { upsertJob as job } from "../../bulk/jobs/upsert.js";
import { csvRows } from "../../bulk/rows/csv-rows.js";
import { type Employee, employeeColumns, employeeJsonEntries } from "../../bulk/rows/employees.js";
import { type InputFile, sheetWithoutWorkbook } from "../../bulk/rows/open.js";
import { JsonRejects, rejectsTarget } from "../../bulk/rows/rejects.js";
import type { Context } from "../../context.js";
import { MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import { bulkFileFlags, bulkFlags, openBulkFile, withInputFile } from "../shared/bulk-file.js";
import type { Wording } from "../shared/bulk-report.js";
import { type CommandJob, serviceOf } from "../shared/bulk-run.js";
import type { OptionsOf } from "../shared/verb.js";

export type EmployeeInput = Awaited<ReturnType<typeof openEmployees>>;

// --concurrency defaults to 8: requests of 100 employees are small, more in flight hide the latency.
export const fileFlags = () => bulkFileFlags("employees", MAX_UPSERT_EMPLOYEES, 8);
type FileOptions = OptionsOf<ReturnType<typeof fileFlags>>;

/** The header an empty CSV file's hint shows. */
const CSV_EXAMPLE = "email,firstName,lastName,externalEmployeeId,department";

/** Opens the file (standard input copied aside first), hands it to `use`, and lets go of it afterwards. */
export async function withEmployees<R>(
  ctx: Context,
  file: string,
  o: FileOptions,
  use: (input: EmployeeInput) => Promise<R>,
): Promise<R> {
  return withInputFile(ctx, file, async (source) => use(await openEmployees(ctx, source, o)), {
    jsonArrays: true,
  });
}

async function openEmployees(ctx: Context, source: InputFile, o: FileOptions) {
  const { json, name: file } = source;
  if (!json) {
    const opened = await openBulkFile(ctx, source, o, CSV_EXAMPLE);
    return {
      ...opened,
      rows: csvRows(opened.input, { rows: "employees", columns: employeeColumns(opened.input) }),
    };
  }
  if (o.sheet !== undefined) throw sheetWithoutWorkbook(file);
  const force = o.force === true;
  const target = rejectsTarget(source.rejectsBeside, o.rejects, {
    force,
    dryRun: ctx.dryRun,
    extension: ".json",
  });
  return {
    rows: { read: employeeJsonEntries(source.path, file) },
    rejects: async () => new JsonRejects(target, force),
    rejectsNamed: target.named && !force ? target.path : undefined,
    inputName: file,
    locate: (line: number) => `${file}:${line}`,
    unit: "line",
    noRows: `${file}: an empty array: nothing to send`,
  };
}

/** The bulk job of both commands but its rows: chunks of checked, serialized rows to the upsert operation. */
export async function upsertJob(
  ctx: Context,
  o: FileOptions,
  input: EmployeeInput,
  kind: "upsert" | "sync",
): Promise<Omit<CommandJob<Employee>, "read">> {
  const upsert = job(await serviceOf(ctx));
  return {
    ...upsert,
    kind,
    inputName: input.inputName,
    locate: input.locate,
    noRowsMessage: input.noRows,
    ...bulkFlags(o, upsert.maxChunk),
    rejects: input.rejects,
  };
}

export function upsertWording(input: EmployeeInput): Wording {
  return {
    verb: "Upserted",
    noun: ["employee", "employees"],
    inputName: input.inputName,
    locate: input.locate,
    rejectsNamed: input.rejectsNamed,
    uncertain:
      "`assess employees list --all` shows whether they arrived; --retry-uncertain sends them again (a row that did arrive is then written again, with the same values).",
  };
}
