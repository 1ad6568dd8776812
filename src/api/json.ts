/**
 * JSON of the items of a bulk request body. A bulk run checks each row against this layer's schemas
 * (Email, EmployeeUpsertItem) once, where it reads it, and serializes it there (`Json`); it keeps the text's
 * UTF-8 bytes until it sends them (`JsonBytes`), and a request body is those bytes joined. A million rows are
 * then not checked, serialized, decoded or encoded again per request (bench/README.md).
 */
declare const itemOf: unique symbol;
export type Json<T> = string & { readonly [itemOf]: T };

/** The text of a value already checked against its schema. */
export function toJson<T>(value: T): Json<T> {
  return JSON.stringify(value) as Json<T>;
}

/** A text known to be `toJson` of a T (read back from where toJson's output was kept). */
export function asJson<T>(text: string): Json<T> {
  return text as Json<T>;
}

/**
 * The UTF-8 bytes of an item's `Json`: `bytes[start, end)`. The rows of a bulk run are such slices themselves,
 * of the piece of the spool file they were read from: no copy and no object of their own (bulk/speedups/spool.ts).
 */
export interface JsonBytes<T> {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
  /** Never set: what the bytes are the JSON of. */
  readonly [itemOf]?: T;
}

const COMMA = 0x2c;

/** `<head>a,b,c<tail>` of the items' bytes, for a body whose array of items is the last thing in it. */
export function jsonArray<T>(items: readonly JsonBytes<T>[], head = "[", tail = "]"): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(items.length - 1, 0);
  for (const item of items) size += item.end - item.start;
  const body = Buffer.allocUnsafe(size);
  let at = body.write(head);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) body[at++] = COMMA;
    const item = items[i]!;
    body.set(item.bytes.subarray(item.start, item.end), at);
    at += item.end - item.start;
  }
  body.write(tail, at);
  return body;
}
