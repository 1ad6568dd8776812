/**
 * The worker thread of a check in two halves (parallel-check.ts): checks and spools its part of the CSV file and
 * answers with a tally, or the error that stopped it. Built as its own entry, dist/check-worker.cjs.
 */
import { parentPort, workerData } from "node:worker_threads";
import { UsageError } from "../../errors.js";
import type { SpoolTarget } from "../storage/spool.js";
import { type ByteRange, type CsvSource, CsvSyntaxError } from "./csv.js";
import { checkPart, type RowReader } from "./csv-rows.js";
import type { WorkerAnswer } from "./parallel-check.js";

const { source, reader, range, spool } = workerData as {
  source: CsvSource;
  reader: RowReader;
  range: ByteRange;
  /** Opened by the main thread: threads share a process's descriptors. */
  spool: SpoolTarget;
};

async function answer(): Promise<WorkerAnswer> {
  try {
    return { tally: await checkPart(source, reader, { range, spool }) };
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      return { syntax: { line: error.line, detail: error.detail, hint: error.hint } };
    if (error instanceof UsageError)
      return { usage: { message: error.message, suggestion: error.suggestion } };
    return { crash: error instanceof Error ? error.message : String(error) };
  }
}

void answer().then((message) => parentPort!.postMessage(message));
