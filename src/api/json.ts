/**
 * JSON of the items of a bulk request body: each row is checked and serialized once, where it is read (`Json`),
 * kept as UTF-8 bytes (`JsonBytes`), and a request body is those bytes joined.
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

/** The UTF-8 bytes of an item's `Json`: `bytes[start, end)` (a slice of what the rows were read from). */
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
