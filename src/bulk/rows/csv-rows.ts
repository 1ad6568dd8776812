/**
 * A CSV file's (or a sheet's) rows as a bulk job reads them: invites or employees, described as data
 * (`RowReader`) so that the parallel check's worker thread (parallel-check.ts) can be told which one to use.
 */
import type { BulkCandidate } from "../../api/schemas.js";
import { tally } from "../engine/check.js";
import type { BulkJob } from "../engine/run.js";
import type { BulkEntry } from "../engine/types.js";
import { type CsvInput, type CsvSource, csvInput } from "./csv.js";
import { type Employee, type EmployeeColumns, employeeCsvEntries } from "./employees.js";
import { type InviteColumns, inviteEntries } from "./invites.js";
import { checkInHalves, type PartCheck } from "./parallel-check.js";
import { fromRejectsFile } from "./rejects.js";

export type RowReader =
  | { rows: "invites"; columns: InviteColumns; testId: number | undefined }
  | { rows: "employees"; columns: EmployeeColumns };
/** What a reader's rows are. */
type ItemOf<R extends RowReader> = R["rows"] extends "invites" ? BulkCandidate : Employee;

/** The rows `reader` describes, read from `input` (a rejects file fed back in: as its rows were first read). */
function rowsOf<R extends RowReader>(
  input: CsvInput,
  reader: R,
): () => AsyncIterable<BulkEntry<ItemOf<R>>[]> {
  const rows = fromRejectsFile(input);
  const read =
    reader.rows === "invites"
      ? inviteEntries(rows, reader.columns, reader.testId)
      : employeeCsvEntries(rows, reader.columns);
  return read as () => AsyncIterable<BulkEntry<ItemOf<R>>[]>;
}

/**
 * A CSV job's `read`, and its optional `splitCheck` (a large file checked in two halves at once), from one
 * description of its rows; a sheet's job has `read` alone.
 */
export function csvRows<R extends RowReader>(
  input: CsvInput,
  reader: R,
): Pick<BulkJob<ItemOf<R>>, "read" | "splitCheck"> {
  const read = rowsOf(input, reader);
  // A sheet's rows are in memory already: there is no text to cut in two.
  return input.sheet !== undefined
    ? { read }
    : {
        read,
        splitCheck: (job) => checkInHalves(input, reader, job, (part) => checkPart(input, reader, part)),
      };
}

/** The check of the rows of the file or of one part of it (`end` receives the line after its last record). */
export function checkPart(source: CsvSource, reader: RowReader, part: Parameters<PartCheck>[0] = {}) {
  return tally(rowsOf(csvInput(source, part), reader)(), part.spool, part.signal, part.onTally);
}
