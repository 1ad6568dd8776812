import { csvRows } from "../../bulk/check.js";
import { ledgerTarget, parseChunkSize, parseConcurrency, runAndReport } from "../../bulk/command.js";
import { noRowsMessage, openCsv, parseDelimiter } from "../../bulk/csv.js";
import { type Employee, employeeColumns, employeeJsonEntries } from "../../bulk/employees.js";
import type { BulkJob, ChunkAnswer, RejectsSink } from "../../bulk/engine.js";
import { CsvRejects, JsonRejects, rejectsTarget } from "../../bulk/rejects.js";
import { MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import type { Handler } from "../shared/kit.js";

const upsert: Handler = async (ctx, args, o) => {
  const file = args[0]!;
  const chunkSize = parseChunkSize(o.chunkSize, MAX_UPSERT_EMPLOYEES);
  // Requests of 100 employees are small and many (10,000 for a million rows): more in flight hide the latency.
  const concurrency = parseConcurrency(o.concurrency, 8);
  const json = /\.json$/i.test(file);
  const force = o.force === true;

  let rows: Pick<BulkJob<Employee>, "read" | "splitCheck">;
  let openRejects: () => Promise<RejectsSink>;
  let inputName = file;
  let noRows = `${file}: an empty array: nothing to send`;
  if (json) {
    const path = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun, extension: ".json" });
    rows = { read: employeeJsonEntries(file, file) };
    openRejects = async () => new JsonRejects(path, force);
  } else {
    const path = rejectsTarget(file, o.rejects, { force, dryRun: ctx.dryRun });
    const input = await openCsv(file, { delimiter: parseDelimiter(o.delimiter) });
    inputName = input.name;
    noRows = noRowsMessage(input);
    rows = csvRows(input, { rows: "employees", columns: employeeColumns(input) });
    openRejects = async () => new CsvRejects(path, input.header, input.delimiter, force);
  }

  const api = await ctx.api();
  const { baseUrl: skillsBaseUrl, key } = await ledgerTarget(ctx, "skills");
  return runAndReport<Employee>(
    ctx,
    {
      kind: "upsert",
      inputName,
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
        `conflicts with line ${line}: the same e-mail with other values (one row per employee)`,
      send: async (_group, rows) =>
        readUpsertAnswer(
          rows.map((row) => row.label),
          await api.upsertEmployees(rows.map((row) => row.json)),
        ),
    },
    { verb: "Upserted", noun: ["employee", "employees"], inputName },
  );
};
export default upsert;

/**
 * API.md §4.4: `failed` items name the employee by e-mail; each maps back to the row that sent it (`emails`:
 * the chunk's, in order).
 */
export function readUpsertAnswer(
  emails: string[],
  answer: { failed?: Array<{ email?: string | null; errors?: string | string[] | null }> | null },
): ChunkAnswer {
  const index = new Map(emails.map((email, i) => [email.toLowerCase(), i]));
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
