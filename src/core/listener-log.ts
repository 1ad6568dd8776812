/**
 * The notifications a `callbacks listen --log` file holds (or bare notifications, one a line): what
 * `callbacks reconcile` and `invite status --log` read. The file is checked to be one before it is opened (a
 * FIFO would hang the open, a folder cannot be read as lines), its lines are bounded (parse/lines.ts), and
 * the requests the listener refused are skipped.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { isRecord } from "../fields.js";
import { boundedLines } from "../parse/lines.js";

export const LOG_FILE = "Give the file `assess callbacks listen --log <file>` appends to.";
const LOG_LINES = "Give the NDJSON file `assess callbacks listen --log` writes (one JSON object per line).";

export interface LoggedNotification {
  /** The notification's fields, in the service's casing. */
  notification: Record<string, unknown>;
  /** When the listener received it (ISO), if it said. */
  receivedAt?: string;
}

/**
 * The notifications of `file` (named `flag` in messages), in file order. A line that is not a JSON object is a
 * usage error naming its line, but for the last one (a listener killed mid-write); `lenient`: skipped wherever
 * it stands.
 */
export async function* loggedNotifications(
  file: string,
  { flag = "--log", lenient = false }: { flag?: string; lenient?: boolean } = {},
): AsyncGenerator<LoggedNotification> {
  await requireRegularFile(file, flag);
  for await (const { text, line, last } of boundedLines(
    createReadStream(file),
    `${flag} ${file}`,
    LOG_LINES,
  )) {
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (last || lenient) continue;
      throw new UsageError(`${flag} ${file}:${line}: not a JSON line`, LOG_LINES);
    }
    if (!isRecord(value)) {
      if (lenient) continue;
      throw new UsageError(`${flag} ${file}:${line}: expected a JSON object (a received notification)`);
    }
    const answered = value.answered;
    if (typeof answered === "number" && (answered < 200 || answered > 299)) continue;
    yield {
      notification: isRecord(value.notification) ? value.notification : value,
      receivedAt: typeof value.receivedAt === "string" ? value.receivedAt : undefined,
    };
  }
}

/** The log is read to its end: a FIFO would hang the run, a folder cannot be read as lines. */
async function requireRegularFile(file: string, flag: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch {
    throw new UsageError(`${flag} ${file}: no such file`, LOG_FILE);
  }
  if (!info.isFile()) {
    const what = info.isDirectory() ? "a folder" : info.isFIFO() ? "a FIFO" : "not a regular file";
    throw new UsageError(
      `${flag} ${file} is ${what}: not a file; give the file the listener wrote`,
      LOG_FILE,
    );
  }
}
