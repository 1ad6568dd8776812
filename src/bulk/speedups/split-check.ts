/**
 * A CSV file's validate-first pass (engine/check.ts) in two halves at once. The pass is all CPU (csv-parse and
 * the row checks) and runs before the first request, while the machine's other cores wait: so a large CSV
 * file is checked in two halves at once, the first here and the second in a worker thread (check-worker.ts,
 * which looks the reader up by name in registry.ts), each into a spool of its own. Measured on a million
 * invite rows: ~2.4 s → ~1.3 s before the first request. Against a build that checks in one pass, on a machine
 * busy with other work (load 4–16), 1M rows: upserts 66.9 s / 86.6 s, invites 12.6 s / 12.9 s (bench/README.md,
 * "The speed-ups, one by one").
 *
 * The halves meet just after a line break in the middle of the file (../rows/csv.ts `midpoint`). If that break is
 * inside a quoted value, the first half ends inside quotes; the worker's result is then dropped and the whole
 * file is checked here instead, so the outcome is always that of one reader going through the file.
 */
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import type { BulkCandidate } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import {
  type Checked,
  interrupted,
  onePass,
  SHOWN_ERRORS,
  type SplitCheck,
  type Tally,
  tally,
} from "../engine/check.js";
import type { BulkJob } from "../engine/run.js";
import {
  type ByteRange,
  type CsvInput,
  type CsvSource,
  CsvSyntaxError,
  csvInput,
  midpoint,
} from "../rows/csv.js";
import type { Employee } from "../rows/employees.js";
import { type EmployeeRows, type InviteRows, type RowReader, rowsOf } from "./registry.js";
import { closeSpool, openSpool, type SpoolTarget } from "./spool.js";

/** Below this a second thread costs more (~40 ms to start and load) than it saves. */
const PARALLEL_BYTES = 8 * 1024 * 1024;

/**
 * A CSV job's `read` and `splitCheck`, both from one description of its rows: the sending pass and each half
 * of the check read them the same way. A sheet's job has `read` alone.
 */
export function csvRows(
  input: CsvInput,
  reader: InviteRows,
): Pick<BulkJob<BulkCandidate>, "read" | "splitCheck">;
export function csvRows(
  input: CsvInput,
  reader: EmployeeRows,
): Pick<BulkJob<Employee>, "read" | "splitCheck">;
export function csvRows(
  input: CsvInput,
  reader: RowReader,
): Pick<BulkJob<BulkCandidate | Employee>, "read" | "splitCheck"> {
  // A sheet's rows are in memory already (xlsx.ts): there is no text to cut in two.
  if (input.sheet !== undefined) return { read: rowsOf(input, reader) };
  return {
    read: rowsOf(input, reader),
    splitCheck: ({ worker, ...options }) => checkSplit({ source: input, reader, worker }, options),
  };
}

/** A CSV job's input, for a check in two halves. */
export interface CsvSplit {
  source: CsvSource;
  reader: RowReader;
  /** The worker script (dist/check-worker.cjs); without it, or for a small file, the check is one pass. */
  worker?: URL;
}

/**
 * Rejects when `signal` fires (Ctrl-C while the other half is still being checked). Marked handled: once the
 * check is over nobody waits for it, and a Ctrl-C later in the run must not surface as an unhandled rejection.
 */
function whenAborted(signal: AbortSignal | undefined): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(interrupted());
    signal?.addEventListener("abort", () => reject(interrupted()), { once: true });
  });
  promise.catch(() => undefined);
  return promise;
}

/**
 * The rows of the file, or of one part of it (lines counted from the part's start; `end` receives the line
 * after its last record), checked only.
 */
export function checkPart(
  source: CsvSource,
  reader: RowReader,
  part: { range?: ByteRange; end?: { line: number }; signal?: AbortSignal; spool?: SpoolTarget } = {},
): Promise<Tally> {
  const input = csvInput(source);
  const ranged = { ...input, batches: () => input.batches(part.range, part.end) };
  return tally(rowsOf(ranged, reader)(), part.spool, part.signal);
}

/** What the worker sends back: its tally, or the error that stopped it (lines relative to its part). */
export type WorkerAnswer =
  | { tally: Tally }
  | { syntax: { line: number; detail: string; hint: string } }
  | { usage: { message: string; suggestion?: string } }
  | { crash: string };

/** Checks the input in two halves at once when it is large and the worker script is there; else in one pass. */
export async function checkSplit(
  split: CsvSplit,
  { signal, debug, spoolDir }: Omit<Parameters<SplitCheck>[0], "worker">,
): Promise<Checked> {
  const { source, reader, worker } = split;
  const whole = () => onePass(spoolDir, (spool) => checkPart(source, reader, { signal, spool }));
  const { size } = await stat(source.path);
  const cut = worker && size >= PARALLEL_BYTES ? await midpoint(source.path, size) : undefined;
  if (!worker || cut === undefined) return whole();
  debug?.(
    `checking ${source.name} in two halves at once: bytes [0, ${cut}) here, [${cut}, ${size}) in a worker thread`,
  );

  // Each half spools its rows to a file of its own; the worker writes to its file descriptor directly (a
  // process's descriptors are shared by its threads).
  const firstSpool = openSpool(spoolDir);
  const secondSpool = openSpool(spoolDir);
  let kept = false;
  // Data only (an opened CsvInput also carries its reading function).
  const { path, name, delimiter, header, headerLine } = source;
  const workerData = {
    source: { path, name, delimiter, header, headerLine },
    reader,
    range: { start: cut, end: size },
    spool: { fd: secondSpool.fd, dir: secondSpool.dir },
  };
  const thread = new Worker(worker, { workerData });
  const answer = new Promise<WorkerAnswer>((resolve) => {
    thread.once("message", resolve);
    thread.once("error", (error) => resolve({ crash: error.message }));
    thread.once("exit", (code) => resolve({ crash: `the checking thread exited with code ${code}` }));
  });
  try {
    const end = { line: 1 };
    let first: Tally;
    try {
      first = await checkPart(source, reader, {
        range: { start: 0, end: cut },
        end,
        signal,
        spool: firstSpool,
      });
    } catch (error) {
      // Most likely the cut fell inside a quoted value: one reader through the whole file decides.
      if (error instanceof CsvSyntaxError) {
        debug?.(
          `the first half ends inside a quoted value (${error.detail}): checking the whole file in one pass`,
        );
        return await whole();
      }
      throw error;
    }
    const second = await Promise.race([answer, whenAborted(signal)]);
    const offset = end.line - 1;
    if ("syntax" in second) {
      const { line, detail, hint } = second.syntax;
      throw new CsvSyntaxError(source.name, line + offset, detail, hint);
    }
    if ("usage" in second) throw new UsageError(second.usage.message, second.usage.suggestion);
    // A thread that could not do its part (out of memory, say): one reader through the whole file after all.
    if ("crash" in second) {
      debug?.(`the worker thread failed (${second.crash}): checking the whole file in one pass`);
      return await whole();
    }
    const rest = second.tally;
    kept = true;
    return {
      rows: first.rows + rest.rows,
      invalid: first.invalid + rest.invalid,
      keyed: first.keyed + rest.keyed,
      shown: [...first.shown, ...rest.shown.map((row) => ({ ...row, line: row.line + offset }))].slice(
        0,
        SHOWN_ERRORS,
      ),
      parts: [
        { spool: firstSpool, lineOffset: 0 },
        { spool: secondSpool, lineOffset: offset },
      ],
    };
  } finally {
    await thread.terminate();
    if (!kept) {
      closeSpool(firstSpool);
      closeSpool(secondSpool);
    }
  }
}
