import type { BulkJob } from "../../bulk/engine/run.js";
import type { ChunkAnswer, RejectsSink } from "../../bulk/engine/types.js";
import { inputLabel, rowPlace } from "../../bulk/rows/columns.js";
import { noRowsMessage } from "../../bulk/rows/csv.js";
import { type Employee, employeeColumns, employeeJsonEntries } from "../../bulk/rows/employees.js";
import { isWorkbook, openRows, sheetWithoutWorkbook } from "../../bulk/rows/open.js";
import { CsvRejects, JsonRejects, rejectsTarget } from "../../bulk/rows/rejects.js";
import { csvRows } from "../../bulk/rows/split-check.js";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
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
  const { chunkSize, concurrency } = o;
  const json = /\.json$/i.test(file);
  const force = o.force === true;

  let rows: Pick<BulkJob<Employee>, "read" | "splitCheck">;
  let openRejects: () => Promise<RejectsSink>;
  let inputName = file;
  let locate: ((line: number) => string) | undefined;
  let unit: "line" | "row" = "line";
  let noRows = `${file}: an empty array: nothing to send`;
  if (json) {
    if (o.sheet !== undefined) throw sheetWithoutWorkbook(file);
    const path = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun, extension: ".json" });
    rows = { read: employeeJsonEntries(file, file) };
    openRejects = async () => new JsonRejects(path, force);
  } else {
    // A workbook's rejected rows go to a CSV file (employees.rejects.csv), which can be fed back in as it is.
    const extension = isWorkbook(file) ? ".csv" : undefined;
    const path = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun, extension });
    const input = await openRows(file, { delimiter: o.delimiter, sheet: o.sheet });
    inputName = inputLabel(input);
    locate = (line) => rowPlace(input, line);
    if (input.sheet !== undefined) unit = "row";
    noRows = noRowsMessage(input);
    rows = csvRows(input, { rows: "employees", columns: employeeColumns(input) });
    openRejects = async () => new CsvRejects(path, input.header, input.delimiter, force, unit);
  }

  const api = await ctx.api();
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
      send: async (_group, rows) => readUpsertAnswer(rows, await api.upsertEmployees(rows)),
    },
    { verb: "Upserted", noun: ["employee", "employees"], inputName, locate },
  );
}

/**
 * The answer's `failed` items name the employee by e-mail; each maps back to the row that sent it (`rows`:
 * the chunk's, in order, labelled by e-mail). The index of e-mails is made only for an answer that names
 * some: most name none (made for every request, it took 0.06–0.2 s a million rows).
 */
export function readUpsertAnswer(
  rows: readonly { label: string }[],
  answer: { failed?: Array<{ email?: string | null; errors?: string | string[] | null }> | null },
): ChunkAnswer {
  if (!answer.failed?.length) return { failed: [], unmatched: [] };
  const index = new Map(rows.map((row, i) => [row.label.toLowerCase(), i]));
  const failed: NonNullable<ChunkAnswer["failed"]> = [];
  const unmatched: string[] = [];
  for (const entry of answer.failed ?? []) {
    const error =
      (Array.isArray(entry.errors) ? entry.errors.join("; ") : entry.errors) || "refused by the service";
    const i = index.get(String(entry.email ?? "").toLowerCase());
    if (i === undefined) unmatched.push(`${entry.email ?? "(no e-mail)"}: ${error}`);
    else failed.push({ index: i, error });
  }
  return { failed, unmatched };
}
