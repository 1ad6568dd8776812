import { parseDelimiter } from "../../bulk/rows/csv.js";
import { int, parsed } from "../../parse/flags.js";
import { boolean, string } from "../../parse/zod.js";

/** The most requests a bulk run keeps in flight (`--concurrency`). */
const MAX_CONCURRENCY = 16;

/** The options of every bulk run over a file: `z.object({ ...bulkFileOptions(MAX), ... })`. */
export function bulkFileOptions(maxChunk: number) {
  return {
    // `--chunk-size` may lower the service's limit per request, never raise it.
    chunkSize: int(1, maxChunk),
    concurrency: int(1, MAX_CONCURRENCY),
    skipInvalid: boolean().optional(),
    rejects: string().optional(),
    force: boolean().optional(),
    delimiter: parsed((text) => parseDelimiter(text) as string).optional(),
    sheet: string().optional(),
    restart: boolean().optional(),
    retryUncertain: boolean().optional(),
  };
}
