/** What a bulk run is made of: rows, invalid rows, and what one chunk's request answered (run.ts runs them). */
import type { Json, JsonBytes } from "../../api/json.js";

/** One row to send. */
export interface BulkRow<T> {
  /** Physical 1-based line of the row in the input file (start line of a multi-line record); or 1-based position. */
  line: number;
  /** Chunks never mix groups; each group has its own ledger (the test id for invites, "" otherwise). */
  group: string;
  /** Ledger identity: a confirmed key is never sent again (lower-cased e-mail, content hash, id). */
  key: string;
  /**
   * The item's identity, when it is not `key` (upsert: the e-mail, while `key` is the content). Repeats are
   * sent once and reported as duplicates: rows with the same `key` in one group (no dedupeKey), or with the
   * same dedupeKey and the same `key` anywhere in the input. Rows with one dedupeKey and different keys
   * conflict: all of them are invalid (dedupe.ts).
   */
  dedupeKey?: string;
  /** What reports show for the row: the e-mail, the id. */
  label: string;
  /** What goes into the request: the item's JSON text, checked against the API layer's schema (api/json.ts). */
  json: Json<T>;
  /** The row as it was read (CSV fields or the JSON item), for the rejects file. */
  source?: unknown;
}

/** What `send` gets of each row of its chunk: its item's JSON as bytes, and its label. */
export interface SentRow<T> extends JsonBytes<T> {
  label: string;
}

/** A row that failed validation. */
export interface InvalidRow {
  line: number;
  error: string;
  label?: string;
  source?: unknown;
}

export type BulkEntry<T> =
  | { row: BulkRow<T>; invalid?: undefined }
  | { invalid: InvalidRow; row?: undefined };

/** What `send` learned from an answered request. */
export interface ChunkAnswer {
  /** The whole chunk was refused (bulk invite answered `false`): no row of it is confirmed. */
  refused?: string;
  /** Items the service refused, by index into the chunk's rows; every other item is confirmed. */
  failed?: Array<{ index: number; error: string }>;
  /** Failures the service reported that match no item of the chunk: shown and counted, not in the rejects file. */
  unmatched?: string[];
}

/** Where rejected rows go; created on the first rejected row, so a clean run leaves no file. */
export interface RejectsSink {
  readonly path: string;
  write(source: unknown, line: number, error: string): void;
  close(): Promise<void>;
}
