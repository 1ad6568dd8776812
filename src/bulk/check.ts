/**
 * The validate-first pass (CLI.md: nothing is sent while any row is invalid). It reads, checks and serializes
 * every row once, and spools the valid ones (spool.ts) for the sending pass to replay. It is all CPU
 * (csv-parse and the row checks) and runs before the first request, while the machine's other cores wait: so
 * a large CSV file is checked in two halves at once, the first here and the second in a worker thread
 * (check-worker.ts), each into a spool of its own. Measured on a million invite rows: ~2.4 s → ~1.3 s before
 * the first request (bench/README.md).
 *
 * The halves meet just after a line break in the middle of the file (csv.ts `midpoint`). If that break is
 * inside a quoted value, the first half ends inside quotes; the worker's result is then dropped and the whole
 * file is checked here instead, so the outcome is always that of one reader going through the file.
 */
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import type { BulkCandidate } from "../api/schemas.js";
import { CliError, UsageError } from "../errors.js";
import { type ByteRange, type CsvInput, type CsvSource, CsvSyntaxError, csvInput, midpoint } from "./csv.js";
import { type Employee, type EmployeeColumns, employeeCsvEntries } from "./employees.js";
import type { BulkEntry, BulkJob } from "./engine.js";
import { type InviteColumns, inviteEntries } from "./invites.js";
import { fromRejectsFile } from "./rejects.js";
import { closeSpool, openSpool, type SpoolFile, type SpoolTarget, SpoolWriter } from "./spool.js";

/** Invalid rows a tally keeps (the usage error lists the first ones and counts the rest). */
export const SHOWN_ERRORS = 20;
/** Below this a second thread costs more (~40 ms to start and load) than it saves. */
const PARALLEL_BYTES = 8 * 1024 * 1024;

/** How a CSV input's rows are read: data only, so a worker thread can read them the same way. */
export type RowReader = InviteRows | EmployeeRows;
type InviteRows = { rows: "invites"; columns: InviteColumns; testId: number | undefined };
type EmployeeRows = { rows: "employees"; columns: EmployeeColumns };

type Read<T> = () => AsyncIterable<BulkEntry<T>[]>;

/** The rows `reader` describes, read from `input` (a rejects file fed back in: as its rows were first read). */
function rowsOf(input: CsvInput, reader: InviteRows): Read<BulkCandidate>;
function rowsOf(input: CsvInput, reader: RowReader): Read<BulkCandidate | Employee>;
function rowsOf(csv: CsvInput, reader: RowReader): Read<BulkCandidate | Employee> {
  const input = fromRejectsFile(csv);
  return reader.rows === "invites"
    ? inviteEntries(input, reader.columns, reader.testId)
    : employeeCsvEntries(input, reader.columns);
}

/**
 * A CSV job's `read` and `splitCheck`, both from one description of its rows: the sending pass and each half
 * of the check read them the same way.
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
  return { read: rowsOf(input, reader), splitCheck: { source: input, reader } };
}

/** A CSV job's input, for a check in two halves. */
export interface SplitCheck {
  source: CsvSource;
  reader: RowReader;
  /** The worker script (dist/check-worker.cjs); without it, or for a small file, the check is one pass. */
  worker?: URL;
}

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
 * The validate-first pass of a job: its CSV file in two halves at once when it is large and the worker
 * script is there, else every row here. The caller closes the spools (`closeSpool`), also on error.
 */
export async function checkRows(
  job: Pick<BulkJob<unknown>, "read" | "splitCheck" | "checkWorker" | "ledgerDir" | "signal" | "onDebug">,
): Promise<Checked> {
  if (job.splitCheck) {
    return checkSplit(
      { ...job.splitCheck, worker: job.checkWorker },
      { signal: job.signal, debug: job.onDebug, spoolDir: job.ledgerDir },
    );
  }
  return onePass(job.ledgerDir, (spool) => tally(job.read(), spool, job.signal));
}

/** One reader through the whole input, into a spool of its own. */
async function onePass(spoolDir: string, check: (spool: SpoolTarget) => Promise<Tally>): Promise<Checked> {
  const spool = openSpool(spoolDir);
  try {
    return { ...(await check(spool)), parts: [{ spool, lineOffset: 0 }] };
  } catch (error) {
    closeSpool(spool);
    throw error;
  }
}

function interrupted(): CliError {
  return new CliError("Interrupted; nothing was sent", { exitCode: 130 });
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
  split: SplitCheck,
  { signal, debug, spoolDir }: { signal?: AbortSignal; debug?: (line: string) => void; spoolDir: string },
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
