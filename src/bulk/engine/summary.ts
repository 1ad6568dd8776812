/**
 * The result of a bulk run: the JSON summary's counts, the per-row lists, and the exit code they mean.
 *
 * Invariants:
 * - Every row of the input is exactly one of: invalid, duplicate, held, alreadyDone, uncertain (from this run or
 *   an earlier one), sent, or unsent; `failed` counts the sent rows the service refused, the chunk counts this
 *   run's requests (uncertain ones included).
 * - The lists hold at most LIST_LIMIT rows each, in input order; `omitted` counts the rest (not of heldRows).
 * - The JSON fields and their order are a contract for scripts: add, never rename or reorder.
 */
import { ExitCode } from "../../errors.js";

export interface RowReport {
  line: number;
  /** The e-mail, the id: what the row is about. */
  label: string;
  error?: string;
  /** The group (test id) when the input routes rows to several. */
  group?: string;
}

/** Rows kept per list (the rejects file has them all). */
export const LIST_LIMIT = 1000;

/** `rows … chunks` are the fields every JSON summary has, in this order; the rest is ours. */
export interface BulkResult {
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
  alreadyDone: number;
  sent: number;
  uncertain: number;
  chunks: { total: number; succeeded: number; failed: number; uncertain: number };
  /** Sent rows the service refused (refused chunks and per-item failures); `sent` includes them. */
  failed: number;
  /** Valid rows not sent because the run stopped (Ctrl-C, an auth or network failure): a rerun sends them. */
  unsent: number;
  failures: RowReport[];
  /** Rows whose outcome is unknown, from this run or an earlier one. */
  uncertainRows: RowReport[];
  invalidRows: RowReport[];
  duplicateRows: RowReport[];
  /** Failures the service reported that match no row. */
  unmatched: string[];
  omitted: { failures: number; uncertainRows: number; invalidRows: number; duplicateRows: number };
  rejects: string | null;
  ledgers: string[];
  /** Valid rows the job's `hold` filter kept back, when the job has one. */
  held?: number;
  heldRows?: RowReport[];
  dryRun?: boolean;
  /** Dry runs: rows that would have been sent. */
  wouldSend?: number;
  /** Dry runs with -o json: the requests that would have been sent, in the one JSON document. */
  requests?: unknown[];
  interrupted?: boolean;
}

export function emptyResult(): BulkResult {
  return {
    rows: 0,
    valid: 0,
    invalid: 0,
    duplicates: 0,
    alreadyDone: 0,
    sent: 0,
    uncertain: 0,
    chunks: { total: 0, succeeded: 0, failed: 0, uncertain: 0 },
    failed: 0,
    unsent: 0,
    failures: [],
    uncertainRows: [],
    invalidRows: [],
    duplicateRows: [],
    unmatched: [],
    omitted: { failures: 0, uncertainRows: 0, invalidRows: 0, duplicateRows: 0 },
    rejects: null,
    ledgers: [],
  };
}

/** Appends to a capped list, counting what does not fit. */
export function addRow(result: BulkResult, list: keyof BulkResult["omitted"], row: RowReport): void {
  if (result[list].length < LIST_LIMIT) result[list].push(row);
  else result.omitted[list]++;
}

/** Lists are filled as chunks finish; the reader wants them by line. */
export function sortLists(result: BulkResult): void {
  for (const list of ["failures", "uncertainRows", "invalidRows", "duplicateRows", "heldRows"] as const) {
    result[list]?.sort((a, b) => a.line - b.line);
  }
}

/** Exit 3 when anything was refused or is of unknown outcome; invalid rows skipped alone are fine. */
export function bulkExitCode(result: BulkResult): number {
  if (result.interrupted) return ExitCode.interrupted;
  if (result.dryRun) return ExitCode.ok;
  // A failed or uncertain chunk counts its rows as failed or uncertain.
  const partial = result.failed > 0 || result.uncertain > 0 || result.unmatched.length > 0;
  return partial ? ExitCode.partial : ExitCode.ok;
}

/** A stopped run's error carries what the run did before it stopped. */
export interface BulkStopped {
  bulk?: BulkResult;
}
