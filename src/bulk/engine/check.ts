/**
 * The checking pass (validate-first): every row of the input is read, checked and serialized once, before the
 * first request, and handed to the sending loop (send.ts) as `CheckedRows`, the only way it sees them.
 *
 * Invariants:
 * - Nothing is sent while any row is invalid, unless --skip-invalid: then the invalid rows are replayed in
 *   their place, to be rejected as the loop reaches them.
 * - Rows of one dedupe key that differ are invalid too (a conflict), found here, before anything is sent.
 * - The rows replayed are exactly the rows checked, in input order, whatever happens to the file meanwhile.
 * - The counts are the whole input's; a pass that throws has sent nothing and leaves no spool open.
 *
 * What stands behind `CheckedRows` is the engine's storage (../storage/): the spool of rows (spool.ts) and the
 * dedupe index (dedupe.ts); a large CSV file may be checked in two halves at once (../rows/parallel-check.ts).
 */
import { InterruptedError, UsageError } from "../../errors.js";
import { SHOWN_ROWS } from "../../output/format.js";
import { indexRows } from "../storage/dedupe.js";
import {
  closeSpool,
  openSpool,
  replay,
  type SpoolFile,
  type SpoolTarget,
  SpoolWriter,
  sourceOf,
} from "../storage/spool.js";
import type { EntryBatches, ReadyEntry, ReadyRow } from "./types.js";

/** What the sending loop gets of the checking pass. */
export interface CheckedRows<T> {
  /** The input's rows, valid or not. */
  readonly rows: number;
  /** The rows in input order, invalid ones in their place; once `countOnly()`, without their JSON. */
  replay(countOnly: () => boolean): AsyncIterable<ReadyEntry<T>[]>;
  /**
   * A row with a dedupe key: FIRST (the first of its key this run), REPEAT, or the line of another row of its
   * key that differs from it (a conflict). Called once per row, in replay order.
   */
  take(row: ReadyRow<T>): number;
  /** The row as read, for the rejects file. */
  sourceOf(row: ReadyRow<T>): unknown;
  /** Frees the spools; called once the run is over. */
  close(): void;
}

export interface CheckInput {
  /** Reads the input from its start, in batches (run.ts `BulkJob.read`). */
  read(): EntryBatches<unknown>;
  /**
   * The check over the same rows as `read`, in parts at once (rows/csv-rows.ts `csvRows`), given the job
   * itself: it spools into `ledgerDir`, stops with exit 130 on `signal`, and tells `onDebug` how it went.
   * Undefined when it does not split (a small file, no worker script, ...): the check is then one pass.
   */
  splitCheck?(job: CheckInput): Promise<Checked | undefined>;
  /** The worker script of a split check (dist/check-worker.cjs); without it the check is one pass. */
  checkWorker?: URL;
  /** The size from which a file is checked in two halves (parallel-check.ts's PARALLEL_BYTES by default). */
  splitFrom?: number;
  /** Folder for ledgers and the spool of checked rows: `ledgerDir(env)` from ledger.ts. */
  ledgerDir: string;
  /** Ctrl-C: while checking, exit 130 with nothing sent; then, send no more and return with `interrupted`. */
  signal?: AbortSignal;
  /** With --debug: how the run goes about its work (a large file checked in two halves, say). */
  onDebug?(line: string): void;
  /** After each batch this thread checks: its rows so far, and how many of them are invalid. */
  onTally?(rows: number, invalid: number): void;
  /** Send the valid rows and reject the invalid ones (else any invalid row stops the run before it sends). */
  skipInvalid: boolean;
  /** How messages name the input: `candidates.csv` gives `candidates.csv:12: …`. */
  inputName?: string;
  /** How messages point at a line (default `<inputName>:<line>`): `candidates.xlsx, sheet "Sheet1", row 12`. */
  locate?(line: number): string;
  /** The usage error for an input without rows (default: "<inputName> has no data rows: nothing to send"). */
  noRowsMessage?: string;
  /** Why a row conflicts with another of its dedupeKey (default: "conflicts with line N: …"). */
  conflictReason?(otherLine: number): string;
}

/** Refuses (exit 2, nothing sent) an input without rows, or with invalid rows unless `skipInvalid`. */
export async function checkPass<T>(job: CheckInput): Promise<CheckedRows<T>> {
  const checked = (await job.splitCheck?.(job)) ?? (await onePass(job));
  const close = () => {
    for (const part of checked.parts) closeSpool(part.spool);
  };
  try {
    const index = indexRows(checked.parts, checked.keyed);
    if (index.conflicts > 0) {
      const conflicting = index.locate(checked.parts, SHOWN_ROWS, conflictReason(job));
      checked.invalid += conflicting.rows;
      checked.shown = conflicting.shown;
    }
    const { rows, invalid, shown } = checked;
    if (rows === 0) {
      throw new UsageError(
        job.noRowsMessage ?? `${job.inputName ?? "The input"} has no data rows: nothing to send`,
        "The first row names the columns; each following row is one item to send.",
      );
    }
    if (!job.skipInvalid && invalid > 0) {
      const where = job.locate ?? ((line) => (job.inputName ? `${job.inputName}:${line}` : `line ${line}`));
      const listed = shown.map(({ line, error }) => `${where(line)}: ${error}`);
      if (invalid > shown.length) listed.push(`… and ${invalid - shown.length} more`);
      throw new UsageError(
        `${invalid} of ${rows} rows ${invalid === 1 ? "is" : "are"} invalid; nothing was sent:\n  ${listed.join("\n  ")}`,
        "Fix the rows, or pass --skip-invalid to send the valid ones and write the others to a rejects file.",
        listed,
      );
    }
    return {
      rows,
      async *replay(countOnly) {
        for (const part of checked.parts) yield* replay<T>(part.spool.fd, part.lineOffset, countOnly);
      },
      take: (row) => index.take(row.dhi, row.dlo, row.hi),
      sourceOf,
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

export function conflictReason(job: Pick<CheckInput, "conflictReason">): (otherLine: number) => string {
  return job.conflictReason ?? ((line) => `conflicts with line ${line}: the same item with other values`);
}

export interface Tally {
  rows: number;
  invalid: number;
  /** Valid rows with a dedupe key of their own. */
  keyed: number;
  /** The first SHOWN_ROWS invalid rows, in file order. */
  shown: Array<{ line: number; error: string }>;
}

/** What the pass found, and where it spooled the rows (in order; each part's lines shifted). */
export interface Checked extends Tally {
  parts: Array<{ spool: SpoolFile; lineOffset: number }>;
}

/** Counts rows and invalid rows and spools them all, invalid ones too; stops with exit 130 on `signal`. */
export async function tally(
  entries: EntryBatches<unknown>,
  spool: SpoolTarget | undefined,
  signal?: AbortSignal,
  onTally?: CheckInput["onTally"],
): Promise<Tally> {
  const result: Tally = { rows: 0, invalid: 0, keyed: 0, shown: [] };
  const writer = spool === undefined ? undefined : new SpoolWriter(spool);
  for await (const batch of entries) {
    for (const entry of batch) {
      result.rows++;
      if (!entry.invalid) {
        writer?.add(entry.row);
        continue;
      }
      result.invalid++;
      writer?.addInvalid(entry.invalid);
      if (result.shown.length < SHOWN_ROWS)
        result.shown.push({ line: entry.invalid.line, error: entry.invalid.error });
    }
    if (signal?.aborted) throw interrupted();
    onTally?.(result.rows, result.invalid);
  }
  writer?.flush();
  result.keyed = writer?.keyed ?? 0;
  return result;
}

/** One reader through the whole input, into a spool of its own (closed again if the check throws). */
async function onePass(job: CheckInput): Promise<Checked> {
  const spool = openSpool(job.ledgerDir);
  try {
    return {
      ...(await tally(job.read(), spool, job.signal, job.onTally)),
      parts: [{ spool, lineOffset: 0 }],
    };
  } catch (error) {
    closeSpool(spool);
    throw error;
  }
}

export function interrupted(): InterruptedError {
  return new InterruptedError("Interrupted; nothing was sent");
}
