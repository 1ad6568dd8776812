import { parseDelimiter } from "../../bulk/rows/csv.js";
import { int, parsed } from "../../parse/flags.js";
import { boolean, string } from "../../parse/zod.js";
import { MAX_CONCURRENCY } from "./bulk-run.js";

/**
 * The options every bulk run over a file takes (`invite bulk`, `employees upsert`), for its schema:
 * `z.object({ ...bulkFileOptions(MAX_BULK_CANDIDATES), ... })`. Their defaults are declared with the flags.
 */
export function bulkFileOptions(maxChunk: number) {
  return {
    // `--chunk-size` may lower the service's limit per request, never raise it.
    chunkSize: int(1, maxChunk),
    concurrency: int(1, MAX_CONCURRENCY),
    skipInvalid: boolean().optional(),
    rejects: string().optional(),
    force: boolean().optional(),
    delimiter: parsed((text) => parseDelimiter(text) as string).optional(),
    // The sheet of an .xlsx input (its first by default); with any other input a usage error.
    sheet: string().optional(),
    restart: boolean().optional(),
    retryUncertain: boolean().optional(),
  };
}
