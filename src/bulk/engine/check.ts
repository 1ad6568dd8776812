/**
 * The validate-first pass (nothing is sent while any row is invalid, unless --skip-invalid). It reads, checks
 * and serializes every row once, and spools them (spool.ts) for the sending pass to replay. A job may check
 * its input in parts at once instead (`BulkJob.splitCheck`: a large CSV file in two halves, one in a worker
 * thread, rows/split-check.ts); the parts are spooled each on its own and replayed in order.
 */
import { InterruptedError } from "../../errors.js";
import { closeSpool, openSpool, type SpoolFile, type SpoolTarget, SpoolWriter } from "./spool.js";
import type { BulkEntry } from "./types.js";

/** Invalid rows a tally keeps (the usage error lists the first ones and counts the rest). */
export const SHOWN_ERRORS = 20;

export interface Tally {
  rows: number;
  invalid: number;
  /** Valid rows with a dedupe key of their own (dedupe.ts). */
  keyed: number;
  /** The first SHOWN_ERRORS invalid rows, in file order. */
  shown: Array<{ line: number; error: string }>;
}

/** What the validate-first pass found, and where it spooled the rows (in order; each part's lines shifted). */
export interface Checked extends Tally {
  parts: Array<{ spool: SpoolFile; lineOffset: number }>;
}

/** A check of a job's input in parts at once; it spools into `spoolDir` and stops with exit 130 on `signal`. */
export type SplitCheck = (options: {
  /** The worker script (dist/check-worker.cjs); without it the check is one pass. */
  worker?: URL;
  spoolDir: string;
  signal?: AbortSignal;
  debug?: (line: string) => void;
}) => Promise<Checked>;

/** What the validate-first pass needs of a job (run.ts `BulkJob`). */
export interface CheckInput {
  read(): AsyncIterable<BulkEntry<unknown>[]>;
  splitCheck?: SplitCheck;
  checkWorker?: URL;
  ledgerDir: string;
  signal?: AbortSignal;
  onDebug?(line: string): void;
}

/**
 * Counts rows and invalid rows, and spools them all to `spool`, the invalid ones too (--skip-invalid rejects
 * them as it sends, and the rows of a key may conflict after an invalid row: dedupe.ts); stops with exit 130
 * when `signal` fires.
 */
export async function tally(
  entries: AsyncIterable<BulkEntry<unknown>[]>,
  spool: SpoolTarget | undefined,
  signal?: AbortSignal,
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
      if (result.shown.length < SHOWN_ERRORS)
        result.shown.push({ line: entry.invalid.line, error: entry.invalid.error });
    }
    if (signal?.aborted) throw interrupted();
  }
  writer?.flush();
  result.keyed = writer?.keyed ?? 0;
  return result;
}

/**
 * The validate-first pass of a job: its own check in parts when it has one, else every row here. The caller
 * closes the spools (`closeSpool`), also on error.
 */
export async function checkRows(job: CheckInput): Promise<Checked> {
  if (job.splitCheck) {
    return job.splitCheck({
      worker: job.checkWorker,
      signal: job.signal,
      debug: job.onDebug,
      spoolDir: job.ledgerDir,
    });
  }
  return onePass(job.ledgerDir, (spool) => tally(job.read(), spool, job.signal));
}

/** One reader through the whole input, into a spool of its own. */
export async function onePass(
  spoolDir: string,
  check: (spool: SpoolTarget) => Promise<Tally>,
): Promise<Checked> {
  const spool = openSpool(spoolDir);
  try {
    return { ...(await check(spool)), parts: [{ spool, lineOffset: 0 }] };
  } catch (error) {
    closeSpool(spool);
    throw error;
  }
}

/** The error of a check stopped by Ctrl-C. */
export function interrupted(): InterruptedError {
  return new InterruptedError("Interrupted; nothing was sent");
}
