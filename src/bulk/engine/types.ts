/**
 * What a bulk run is made of: rows and invalid rows, the key flags the ledger and the sending loop share, the
 * rows the checking pass hands the sending loop, and what one chunk's request answered (run.ts runs them).
 *
 * Invariants:
 * - A row's `key` is its ledger identity within its group: a key the ledger holds as confirmed (DONE) is
 *   never sent again, by this run or a later one against the same target.
 * - `line` is the row's place in the input: every report, rejects-file line and error names a real line.
 * - The sending loop sends only ReadyRows the checking pass checked, and learns of the ledger only a key's flags.
 */
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

/** Key flags: confirmed by the service in an earlier run (from the ledger). */
export const DONE = 1;
/** Key flags: sent by an earlier run whose answer never came (from the ledger). */
export const UNCERTAIN = 2;
/** Key flags: met already in this run (dedupe). */
export const SEEN = 4;

/** The keys of a group and their flags: the ledger's state plus this run's SEEN (speedups/keyset.ts). */
export interface KeyFlags {
  /** Flags of a key (0 when absent). */
  get(hi: number, lo: number): number;
  /** Sets `add` and clears `clear` flags of a key (adding it when absent); returns the flags it had. */
  update(hi: number, lo: number, add: number, clear?: number): number;
}

/** A checked row ready to send: its keys hashed, its item serialized (replayed by the checking pass). */
export interface ReadyRow<T> extends SentRow<T> {
  line: number;
  group: string;
  /** Hash of the ledger key. */
  hi: number;
  lo: number;
  /** The dedupe key's hash, when the row has a dedupe key of its own (upsert: e-mail vs content). */
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
export interface BulkProgress {
  /** Rows read so far (valid or not). */
  rows: number;
  /** Rows whose fate is settled: sent and answered, skipped, invalid, duplicate. */
  done: number;
  /** Rows to expect, when a validate-first pass counted them. */
  total?: number;
}

/** What became of a row. */
export type RowFate = "sent" | "failed" | "uncertain" | "invalid" | "duplicate" | "alreadyDone";
