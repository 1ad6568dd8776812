/**
 * The optional part of reading rows: a large CSV file's validate-first pass (engine/check.ts) in two halves at
 * once, the second in a worker thread (check-worker.ts), each into a spool of its own: the pass is all CPU while
 * other cores wait. The halves meet after a line break in the middle; if that break is inside a quoted value the
 * first half ends inside quotes, and the checking pass reads the whole file in one pass instead: the outcome is
 * always that of one reader. Without the worker script, or below PARALLEL_BYTES (or the job's splitFrom: tests
 * split small files), the check is one pass.
 */
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { UsageError } from "../../errors.js";
import { SHOWN_ROWS } from "../../output/format.js";
import { type Checked, type CheckInput, interrupted, type Tally } from "../engine/check.js";
import { closeSpool, openSpool, type SpoolTarget } from "../storage/spool.js";
import { type ByteRange, type CsvSource, CsvSyntaxError, midpoint } from "./csv.js";

/** The check of the rows of the file or of one part of it (`end` receives the line after its last record). */
export type PartCheck = (part: {
  range?: ByteRange;
  end?: { line: number };
  signal?: AbortSignal;
  spool?: SpoolTarget;
  onTally?: CheckInput["onTally"];
}) => Promise<Tally>;

/** Below this a second thread costs more (~40 ms to start and load) than it saves. */
const PARALLEL_BYTES = 8 * 1024 * 1024;

/** What the worker sends back: its tally, or the error that stopped it (lines relative to its part). */
export type WorkerAnswer =
  | { tally: Tally }
  | { syntax: { line: number; detail: string; hint: string } }
  | { usage: { message: string; suggestion?: string } }
  | { crash: string };

/**
 * Checks the input in two halves at once when it is large and the worker script is there (else undefined):
 * `checkPart` here, the same check of the rows `reader` describes (csv-rows.ts) in the worker.
 */
export async function checkInHalves(
  source: CsvSource,
  reader: unknown,
  { checkWorker, splitFrom = PARALLEL_BYTES, signal, onDebug, ledgerDir, onTally }: CheckInput,
  checkPart: PartCheck,
): Promise<Checked | undefined> {
  const { size } = await stat(source.path);
  const cut = checkWorker && size >= splitFrom ? await midpoint(source.path, size) : undefined;
  if (!checkWorker || cut === undefined) return undefined;
  onDebug?.(
    `checking ${source.name} in two halves at once: bytes [0, ${cut}) here, [${cut}, ${size}) in a worker thread`,
  );

  // The worker writes to its spool's descriptor directly: a process's threads share them.
  const firstSpool = openSpool(ledgerDir);
  const secondSpool = openSpool(ledgerDir);
  let kept = false;
  // Data only (a CsvInput also carries a function).
  const { path, name, delimiter, header, headerLine } = source;
  const workerData = {
    source: { path, name, delimiter, header, headerLine },
    reader,
    range: { start: cut, end: size },
    spool: { fd: secondSpool.fd, dir: secondSpool.dir },
  };
  const thread = new Worker(checkWorker, { workerData });
  const answer = new Promise<WorkerAnswer>((resolve) => {
    thread.once("message", resolve);
    thread.once("error", (error) => resolve({ crash: error.message }));
    thread.once("exit", (code) => resolve({ crash: `the checking thread exited with code ${code}` }));
  });
  try {
    const end = { line: 1 };
    let first: Tally;
    try {
      first = await checkPart({
        range: { start: 0, end: cut },
        end,
        signal,
        spool: firstSpool,
        onTally,
      });
    } catch (error) {
      // Most likely the cut fell inside a quoted value.
      if (error instanceof CsvSyntaxError) {
        onDebug?.(
          `the first half ends inside a quoted value (${error.detail}): checking the whole file in one pass`,
        );
        return undefined;
      }
      throw error;
    }
    // Ctrl-C while the worker is at its half: exit 130 without waiting for it.
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(interrupted());
      signal?.addEventListener("abort", () => reject(interrupted()), { once: true });
    });
    const second = await Promise.race([answer, aborted]);
    const offset = end.line - 1;
    if ("syntax" in second) {
      const { line, detail, hint } = second.syntax;
      throw new CsvSyntaxError(source.name, line + offset, detail, hint);
    }
    if ("usage" in second) throw new UsageError(second.usage.message, second.usage.suggestion);
    // A thread that could not do its part (out of memory, say).
    if ("crash" in second) {
      onDebug?.(`the worker thread failed (${second.crash}): checking the whole file in one pass`);
      return undefined;
    }
    const rest = second.tally;
    kept = true;
    return {
      rows: first.rows + rest.rows,
      invalid: first.invalid + rest.invalid,
      keyed: first.keyed + rest.keyed,
      shown: [...first.shown, ...rest.shown.map((row) => ({ ...row, line: row.line + offset }))].slice(
        0,
        SHOWN_ROWS,
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
