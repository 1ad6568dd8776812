/**
 * The bulk jobs (invite.ts, upsert.ts, resend.ts, reattempt.ts): what each kind of run sends, declared once for
 * the CLI, the SDK and the MCP server, which keep only their presentation (progress and report; return values;
 * plan tokens). A job is spread into the engine's `BulkJob` (run.ts): its kind (the ledger's name), the most rows
 * of one request (its operation's limit), the ledger of a group, and the request of one chunk; `prepare` checks
 * and keys a row given in memory as a file's rows are.
 */

import type { Api } from "../../api/endpoints.js";
import type { ApiName } from "../../api/transport.js";
import { keyFingerprint, type LedgerTarget } from "../engine/ledger.js";
import type { BulkEntry, BulkRow, ChunkAnswer, SentRow } from "../engine/types.js";

/** Where a job's requests go: the client, and whether it is the CLI's embedded sandbox (`--sandbox`). */
export interface Service {
  api: Api;
  embeddedSandbox?: boolean;
}

/** A row checked and keyed: its item's JSON text, and what the ledger and the dedupe know it by. */
type Prepared<T> = Pick<BulkRow<T>, "json" | "key" | "dedupeKey" | "label">;

export interface Job<R, T> {
  kind: "invite" | "upsert" | "callbacks" | "reattempt" | "remind";
  /** The most rows of one request: its operation's limit (`--chunk-size` may only lower it). */
  maxChunk: number;
  /** The ledger of a group of rows (a test's, for invites and reattempts). */
  target(group: string): LedgerTarget;
  /** A row given in memory, checked and keyed as a file's rows are. */
  prepare(row: R): Prepared<T> | { invalid: string };
  /** Sends one chunk (rows of one group); the engine classifies what it throws. */
  send(group: string, rows: readonly SentRow<T>[]): Promise<ChunkAnswer | undefined>;
}

/**
 * Where requests go, as ledgers name it: the base URL and the key's fingerprint, never the key. The embedded
 * sandbox listens on a new port each run but keeps its account between runs: it is one place whatever its
 * port, so a rerun (or another front door: `assess --sandbox mcp`) finds what an earlier run confirmed.
 */
export function ledgerTarget({ api, embeddedSandbox }: Service, which: ApiName): LedgerTarget {
  const { baseUrl, skillsBaseUrl, apiKey } = api.transport.options;
  if (embeddedSandbox) return { baseUrl: `sandbox:embedded/${which}`, key: keyFingerprint(apiKey) };
  return { baseUrl: which === "skills" ? skillsBaseUrl : baseUrl, key: keyFingerprint(apiKey) };
}

/** The engine's entries of rows given in memory, numbered from 1 as lines; `label` names an invalid one. */
export function entriesOf<R, T>(
  job: Pick<Job<R, T>, "prepare">,
  rows: readonly R[],
  group = "",
  label: (row: R) => string | undefined = () => undefined,
): BulkEntry<T>[] {
  return rows.map((row, index) => {
    let checked: Prepared<T> | { invalid: string };
    try {
      checked = job.prepare(row);
    } catch (error) {
      checked = { invalid: error instanceof Error ? error.message : String(error) };
    }
    return entryOf(checked, index, label(row), group);
  });
}

/** The engine's entry of the row at `index` (from 0) of a list, as checked. */
export function entryOf<T>(
  checked: Prepared<T> | { invalid: string },
  index: number,
  label?: string,
  group = "",
): BulkEntry<T> {
  return "invalid" in checked
    ? { invalid: { line: index + 1, label, error: checked.invalid } }
    : { row: { line: index + 1, group, ...checked } };
}
