/** The lines of a file or stream a person gives (`resend --file`, `reconcile --log`), each of bounded length. */
import { UsageError } from "../errors.js";

/** A longer line is not an id list's nor a `callbacks listen --log` line (its bodies are at most 1 MiB). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

interface Line {
  text: string;
  /** With `skipLonger`: the line was longer than that, and is dropped unread (`text` is empty). */
  tooLong?: true;
  /** 1-based. */
  line: number;
  /** The final line, without its newline (the file's last write may have been cut short). */
  last: boolean;
}

/**
 * The lines of `input` (ended by LF, CRLF or a lone CR, as readline ends them), read a chunk at a time: a line
 * of more than MAX_LINE_BYTES (a CR that ends it counted, an LF not) is a usage error `<what>:<line>: a line
 * longer than 8 MiB`, raised before more than that and one chunk are held. `skipLonger`: a line longer than
 * that many bytes is no error but dropped as it is read, and told as `tooLong` in its place.
 */
export async function* boundedLines(
  input: AsyncIterable<Buffer | string>,
  what: string,
  suggestion: string,
  skipLonger?: number,
): AsyncGenerator<Line> {
  let line = 0;
  // The start of the current line: chunks without a line end yet, and their length.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // The last chunk ended in CR: an LF starting the next one belongs to it.
  let afterCr = false;
  // With skipLonger: the current line passed it, and is being dropped.
  let dropping = false;
  const tooLong = (bytes: number) => {
    if (skipLonger !== undefined) {
      if (bytes > skipLonger) dropping = true;
      return;
    }
    if (bytes <= MAX_LINE_BYTES) return;
    throw new UsageError(
      `${what}:${line + 1}: a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB`,
      suggestion,
    );
  };
  for await (const piece of input) {
    const chunk = typeof piece === "string" ? Buffer.from(piece) : piece;
    let start = afterCr && chunk[0] === 10 ? 1 : 0;
    afterCr = false;
    let lf = chunk.indexOf(10, start);
    let cr = chunk.indexOf(13, start);
    while (lf !== -1 || cr !== -1) {
      const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
      const endsInCr = end === cr;
      tooLong(pendingBytes + end - start + (endsInCr ? 1 : 0));
      if (dropping) yield { text: "", tooLong: true, line: ++line, last: false };
      else {
        const head = chunk.subarray(start, end);
        const bytes = pending.length > 0 ? Buffer.concat([...pending, head]) : head;
        yield { text: bytes.toString("utf8"), line: ++line, last: false };
      }
      pending = [];
      pendingBytes = 0;
      dropping = false;
      start = end + 1;
      if (endsInCr) {
        if (start === chunk.length) afterCr = true;
        else if (chunk[start] === 10) start++;
      }
      if (lf !== -1 && lf < start) lf = chunk.indexOf(10, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(13, start);
    }
    if (start === chunk.length) continue;
    pendingBytes += chunk.length - start;
    tooLong(pendingBytes);
    if (dropping) pending = [];
    // A copy: the rest of a chunk must not keep the whole chunk alive.
    else pending.push(Buffer.from(chunk.subarray(start)));
  }
  if (dropping) yield { text: "", tooLong: true, line: line + 1, last: true };
  else if (pendingBytes > 0)
    yield { text: Buffer.concat(pending).toString("utf8"), line: line + 1, last: true };
}
