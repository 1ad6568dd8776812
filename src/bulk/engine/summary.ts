/**
 * The result of a bulk run: the JSON summary's counts, the per-row lists, and the exit code they mean.
 *
 * Invariants:
 * - Every row of the input is exactly one of: invalid, duplicate, alreadyDone, uncertain from an earlier run,
 *   sent, or unsent; failed, uncertain and the chunk counts say what became of the sent ones.
 * - The lists hold at most `limits.list` rows each, in input order; `omitted` counts the rest.
 * - The JSON fields and their order are a contract for scripts: add, never rename or reorder.
 */
import { ExitCode } from "../../errors.js";

/** One row in a report: where it is, what it is, what happened. */
export interface RowReport {
  line: number;
  /** The e-mail, the id: what the row is about. */
  label: string;
  error?: string;
  /** The group (test id) when the input routes rows to several. */
  group?: string;
}

export interface SummaryLimits {
  /** Rows kept per list in the result (the rejects file has them all). */
  list: number;
}

export const DEFAULT_LIMITS: SummaryLimits = { list: 1000 };

/**
 * `rows … chunks` are the fields every JSON summary has, in this order; the rest is ours. Row counts are
 * for the input: every row is exactly one of invalid, duplicate, held, alreadyDone, uncertain-from-an-earlier-run,
 * sent, or unsent (left when the run stopped early).
 */
export interface BulkResult {
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
  alreadyDone: number;
  sent: number;
  uncertain: number;
  chunks: { total: number; succeeded: number; failed: number; uncertain: number };
  /** Sent rows the service refused (refused chunks and per-item failures). */
  failed: number;
  /**
   * Valid rows not sent because the run stopped (Ctrl-C, an authentication or network failure): those it had
   * read and those it never reached (counted all the same: a rerun sends them).
   */
  unsent: number;
  /** Per-row failures the service reported, in input order. */
  failures: RowReport[];
  /** Rows whose outcome is unknown, from this run or an earlier one. */
  uncertainRows: RowReport[];
  invalidRows: RowReport[];
  duplicateRows: RowReport[];
  /** Failures the service reported that match no row. */
  unmatched: string[];
  /** Rows beyond the lists' limit, per list. */
  omitted: { failures: number; uncertainRows: number; invalidRows: number; duplicateRows: number };
  rejects: string | null;
  ledgers: string[];
  /** Valid rows the job's `hold` filter kept back (run.ts), when the job has one; listed up to the limit. */
  held?: number;
  heldRows?: RowReport[];
  dryRun?: boolean;
  /** Dry runs: rows that would have been sent. */
  wouldSend?: number;
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

type ListName = keyof BulkResult["omitted"];

/** Appends to a capped list, counting what does not fit. */
export function addRow(result: BulkResult, list: ListName, row: RowReport, limits: SummaryLimits): void {
  if (result[list].length < limits.list) result[list].push(row);
  else result.omitted[list]++;
}

/** Lists are filled as chunks finish; the reader wants them by line. */
export function sortLists(result: BulkResult): void {
  for (const list of ["failures", "uncertainRows", "invalidRows", "duplicateRows"] as const) {
    result[list].sort((a, b) => a.line - b.line);
  }
  result.heldRows?.sort((a, b) => a.line - b.line);
}

/** Exit 3 when anything was refused or is of unknown outcome; invalid rows skipped alone are fine. */
export function bulkExitCode(result: BulkResult): number {
  if (result.interrupted) return ExitCode.interrupted;
  if (result.dryRun) return ExitCode.ok;
  const partial =
    result.failed > 0 ||
    result.uncertain > 0 ||
    result.chunks.failed > 0 ||
    result.chunks.uncertain > 0 ||
    result.unmatched.length > 0;
  return partial ? ExitCode.partial : ExitCode.ok;
}

/** A stopped run's error carries what the run did before it stopped. */
export interface BulkStopped {
  bulk?: BulkResult;
}
