/**
 * JSON text of one item of a bulk request body. A bulk run checks each row against this layer's schemas
 * (Email, EmployeeUpsertItem) once, where it reads it, and serializes it there; request bodies are put
 * together from those texts. A million rows are then not checked and serialized again per request
 * (bench/README.md).
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

/** `[a,b,c]` of the items' texts. */
export function jsonArray<T>(items: readonly Json<T>[]): string {
  return `[${items.join(",")}]`;
}
