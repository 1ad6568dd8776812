/**
 * The row readers of CSV input, by name. A reader is described as data (`RowReader`), so the worker thread of
 * a split check (check-worker.ts) can be told which one to use and read its part the same way.
 */
import type { BulkCandidate } from "../../api/schemas.js";
import type { BulkEntry } from "../engine/types.js";
import type { CsvInput } from "../rows/csv.js";
import { type Employee, type EmployeeColumns, employeeCsvEntries } from "../rows/employees.js";
import { type InviteColumns, inviteEntries } from "../rows/invites.js";
import { fromRejectsFile } from "../rows/rejects.js";

/** How a CSV input's rows are read: the reader's name and its settings, data only. */
export type RowReader = InviteRows | EmployeeRows;
export type InviteRows = { rows: "invites"; columns: InviteColumns; testId: number | undefined };
export type EmployeeRows = { rows: "employees"; columns: EmployeeColumns };

export type Read<T> = () => AsyncIterable<BulkEntry<T>[]>;

const READERS: {
  [N in RowReader["rows"]]: (input: CsvInput, reader: Extract<RowReader, { rows: N }>) => Read<unknown>;
} = {
  invites: (input, reader) => inviteEntries(input, reader.columns, reader.testId),
  employees: (input, reader) => employeeCsvEntries(input, reader.columns),
};

/** The rows `reader` describes, read from `input` (a rejects file fed back in: as its rows were first read). */
export function rowsOf(input: CsvInput, reader: InviteRows): Read<BulkCandidate>;
export function rowsOf(input: CsvInput, reader: EmployeeRows): Read<Employee>;
export function rowsOf(input: CsvInput, reader: RowReader): Read<BulkCandidate | Employee>;
export function rowsOf(input: CsvInput, reader: RowReader): Read<unknown> {
  const read = READERS[reader.rows] as (input: CsvInput, reader: RowReader) => Read<unknown>;
  return read(fromRejectsFile(input), reader);
}
