/**
 * The elements of a file's top-level JSON array, each with the line it starts on, streamed: a byte scanner
 * finds where each element begins and ends, and only that element's text is parsed.
 */
import { createReadStream } from "node:fs";
import { UsageError } from "../../errors.js";
import { unreadable } from "../../files.js";

export interface JsonElement {
  line: number;
  value?: unknown;
  error?: string;
}

const MAX_ELEMENT_BYTES = 1024 * 1024;

enum C {
  Quote = 0x22,
  Backslash = 0x5c,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  Comma = 0x2c,
  Newline = 0x0a,
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Bytes that end a bare literal (a number, true, false, null) besides white space. */
const ENDS_LITERAL = new Set<number>([C.Comma, C.CloseBracket, C.OpenBrace, C.OpenBracket, C.Quote]);

/** Elements of the array in `path`, in batches; structural errors (not an array, truncated) are usage errors. */
export async function* jsonArrayBatches(path: string, name: string): AsyncGenerator<JsonElement[]> {
  let line = 1;
  let started = false; // [ seen
  let finished = false; // ] seen
  let depth = 0; // inside the current element
  let inString = false;
  let escaped = false;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let elementLine = 0;
  let inElement = false;
  let expectValue = true; // after [ or ,
  let first = true;
  let literal = false; // the current element is a bare number, true, false or null

  const fail = (message: string, at = line) => new UsageError(`${name}:${at}: ${message}`);

  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  try {
    for await (const piece of stream) {
      const buf = piece as Buffer;
      const out: JsonElement[] = [];
      let i = first && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      first = false;
      // Where the current element starts in this piece (at 0 when it began in an earlier one).
      let elementStart = inElement ? 0 : -1;
      const closeElement = (end: number) => {
        parts.push(buf.subarray(elementStart, end));
        const text = Buffer.concat(parts).toString("utf8");
        parts = [];
        partBytes = 0;
        inElement = false;
        literal = false;
        elementStart = -1;
        try {
          out.push({ line: elementLine, value: JSON.parse(text) });
        } catch (error) {
          out.push({ line: elementLine, error: `not valid JSON: ${(error as Error).message}` });
        }
      };
      for (; i < buf.length; i++) {
        const b = buf[i]!;
        if (inString) {
          if (b === C.Newline) line++;
          if (escaped) escaped = false;
          else if (b === C.Backslash) escaped = true;
          else if (b === C.Quote) {
            inString = false;
            if (depth === 0) closeElement(i + 1);
          }
          continue;
        }
        // A bare literal ends at the first byte that cannot be part of it, which is looked at again below.
        if (literal && (isSpace(b) || ENDS_LITERAL.has(b))) closeElement(i);
        if (b === C.Newline) line++;
        if (isSpace(b)) continue;
        if (finished) throw fail("text after the end of the array");
        if (!started) {
          if (b !== C.OpenBracket)
            throw fail("the file must hold a JSON array of employees: [ {...}, {...} ]");
          started = true;
          continue;
        }
        if (!inElement) {
          if (b === C.CloseBracket) {
            // `[]` is fine; a ] after a comma is not.
            if (expectValue && elementLine !== 0) throw fail("a comma before ]");
            finished = true;
            continue;
          }
          if (b === C.Comma) {
            if (expectValue) throw fail("a value is missing before this comma");
            expectValue = true;
            continue;
          }
          if (!expectValue) throw fail("a comma is missing between two elements");
          inElement = true;
          expectValue = false;
          elementLine = line;
          elementStart = i;
          depth = b === C.OpenBrace || b === C.OpenBracket ? 1 : 0;
          inString = b === C.Quote;
          literal = depth === 0 && !inString;
          continue;
        }
        // Inside an element, outside strings.
        if (literal) continue;
        if (b === C.Quote) inString = true;
        else if (b === C.OpenBrace || b === C.OpenBracket) depth++;
        else if (b === C.CloseBrace || b === C.CloseBracket) {
          depth--;
          if (depth === 0) closeElement(i + 1);
        }
      }
      if (inElement) {
        const rest = buf.subarray(elementStart === -1 ? 0 : elementStart);
        parts.push(rest);
        partBytes += rest.length;
        if (partBytes > MAX_ELEMENT_BYTES)
          throw fail(`an element larger than 1 MiB starts here`, elementLine);
      }
      if (out.length > 0) yield out;
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw unreadable(name, error, { stdin: true });
  } finally {
    stream.destroy();
  }
  if (!started) throw fail("the file is empty: it must hold a JSON array of employees", 1);
  if (inElement || !finished) throw fail("the array never closes (the file ends too early)");
}
