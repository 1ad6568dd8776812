/**
 * What a bulk run is made of: rows and invalid rows, the key flags the ledger and the sending loop share, the
 * rows the checking pass hands the sending loop, and what one chunk's request answered.
 *
 * Invariants: a key the ledger holds as DONE is never sent again to the same target; `line` is the row's
 * place in the input, so every report names a real line; the sending loop sends only checked ReadyRows.
 */
import type { Json, JsonBytes } from "../../api/json.js";

export interface BulkRow<T> {
  /** 1-based line of the row in the input (start line of a multi-line record), or its position. */
  line: number;
  /** Chunks never mix groups; each group has its own ledger (the test id for invites, "" otherwise). */
  group: string;
  /** Ledger identity: a confirmed key is never sent again (lower-cased e-mail, content hash, id). */
  key: string;
  /** The item's identity when not `key` (upsert: the e-mail); its rows with different keys conflict (dedupe.ts). */
  dedupeKey?: string;
  /** What reports show for the row: the e-mail, the id. */
  label: string;
  json: Json<T>;
  /** The row as it was read, for the rejects file. */
  source?: unknown;
}

/** What `send` gets of each row of its chunk. */
export interface SentRow<T> extends JsonBytes<T> {
  label: string;
}

export interface InvalidRow {
  line: number;
  error: string;
  label?: string;
  /** The external id an employee row names, if any: a sync never deactivates whom even a rejected row names. */
  externalId?: string;
  source?: unknown;
}

export type BulkEntry<T> =
  | { row: BulkRow<T>; invalid?: undefined }
  | { invalid: InvalidRow; row?: undefined };

/** A run's input, in batches: a list of them (rows already in memory) or a stream. */
export type EntryBatches<T> = Iterable<BulkEntry<T>[]> | AsyncIterable<BulkEntry<T>[]>;

/** What `send` learned from an answered request. */
export interface ChunkAnswer {
  /** The whole chunk was refused (bulk invite answered `false`): no row of it is confirmed. */
  refused?: string;
  /** Items the service refused, by index into the chunk's rows; every other item is confirmed. */
  failed?: Array<{ index: number; error: string }>;
  /** Failures that match no item of the chunk: shown and counted, not in the rejects file. */
  unmatched?: string[];
}

/** Where rejected rows go; created on the first rejected row, so a clean run leaves no file. */
export interface RejectsSink {
  readonly path: string;
  write(source: unknown, line: number, error: string): void;
  close(): Promise<void>;
}

/** Key flags: confirmed by an earlier run; sent by an earlier run whose answer never came; met in this run. */
export const DONE = 1;
export const UNCERTAIN = 2;
export const SEEN = 4;

/** A checked row ready to send: its keys hashed, its item serialized. */
export interface ReadyRow<T> extends SentRow<T> {
  line: number;
  group: string;
  /** The ledger key's hash; the dedupe key's, when the row has one of its own (`dedupe`). */
  hi: number;
  lo: number;
  dedupe: boolean;
  dhi: number;
  dlo: number;
  invalid?: undefined;
}

/** What the sending loop reads: ready rows, and invalid ones in their place. */
export type ReadyEntry<T> = ReadyRow<T> | { invalid: InvalidRow };

/** What the checking pass says of a row with a dedupe key: the first of its key in this run, or a repeat. */
export const FIRST = -1;
export const REPEAT = 0;

export type RowFate = "sent" | "failed" | "uncertain" | "invalid" | "duplicate" | "alreadyDone";
