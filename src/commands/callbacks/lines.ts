/** The lines of a file or stream a person gives (`resend --file`, `reconcile --log`), each of bounded length. */
import { UsageError } from "../../errors.js";

/** A longer line is not an id list's nor a `callbacks listen --log` line (its bodies are at most 1 MiB). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

interface Line {
  text: string;
  /** 1-based. */
  line: number;
  /** The final line, without its newline (the file's last write may have been cut short). */
  last: boolean;
}

/**
 * The lines (LF or CRLF) of `input`, read a chunk at a time: a line of more than MAX_LINE_BYTES (its CR counted,
 * not its LF) is a usage error `<what>:<line>: a line longer than 8 MiB`, raised before more than that and one
 * chunk are held.
 */
export async function* boundedLines(
  input: AsyncIterable<Buffer | string>,
  what: string,
  suggestion: string,
): AsyncGenerator<Line> {
  let line = 0;
  // The start of the current line: chunks without a newline yet, and their length.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const tooLong = (bytes: number) => {
    if (bytes <= MAX_LINE_BYTES) return;
    throw new UsageError(
      `${what}:${line + 1}: a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB`,
      suggestion,
    );
  };
  for await (const piece of input) {
    let chunk = typeof piece === "string" ? Buffer.from(piece) : piece;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10)) {
      tooLong(pendingBytes + end);
      const head = chunk.subarray(0, end);
      const bytes = pending.length > 0 ? Buffer.concat([...pending, head]) : head;
      pending = [];
      pendingBytes = 0;
      yield { text: bytes.toString("utf8").replace(/\r$/, ""), line: ++line, last: false };
      chunk = chunk.subarray(end + 1);
    }
    if (chunk.length === 0) continue;
    pendingBytes += chunk.length;
    tooLong(pendingBytes);
    // A copy: the rest of a chunk must not keep the whole chunk alive.
    pending.push(Buffer.from(chunk));
  }
  if (pendingBytes > 0) {
    yield { text: Buffer.concat(pending).toString("utf8").replace(/\r$/, ""), line: line + 1, last: true };
  }
}
