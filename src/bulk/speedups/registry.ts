/**
 * The row readers of CSV input, described as data (`RowReader`), so the worker thread of a split check
 * (check-worker.ts) can be told which one to use and read its part the same way.
 */
import type { BulkCandidate } from "../../api/schemas.js";
import type { BulkEntry } from "../engine/types.js";
import type { CsvInput } from "../rows/csv.js";
import { type Employee, type EmployeeColumns, employeeCsvEntries } from "../rows/employees.js";
import { type InviteColumns, inviteEntries } from "../rows/invites.js";
import { fromRejectsFile } from "../rows/rejects.js";

export type RowReader = InviteRows | EmployeeRows;
export type InviteRows = { rows: "invites"; columns: InviteColumns; testId: number | undefined };
export type EmployeeRows = { rows: "employees"; columns: EmployeeColumns };

type Read<T> = () => AsyncIterable<BulkEntry<T>[]>;

/** The rows `reader` describes, read from `input` (a rejects file fed back in: as its rows were first read). */
export function rowsOf(input: CsvInput, reader: InviteRows): Read<BulkCandidate>;
export function rowsOf(input: CsvInput, reader: EmployeeRows): Read<Employee>;
export function rowsOf(input: CsvInput, reader: RowReader): Read<BulkCandidate | Employee>;
export function rowsOf(input: CsvInput, reader: RowReader): Read<unknown> {
  const rows = fromRejectsFile(input);
  return reader.rows === "invites"
    ? inviteEntries(rows, reader.columns, reader.testId)
    : employeeCsvEntries(rows, reader.columns);
}
