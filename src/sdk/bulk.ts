/**
 * Bulk invites and upserts from code: rows in, one outcome per row out. They run through the CLI's bulk engine
 * (bulk/engine/run.ts): every row is checked before the first request (an invalid row is reported, not sent),
 * repeats are sent once, rows of one employee that differ conflict (neither is sent), the rest go in chunks of
 * ≤ chunkSize through the one request function of each operation (api/endpoints.ts: `bulkInvite`,
 * `upsertEmployees`), a few at a time, and the engine tells each row's fate (`onRow`).
 *
 * With `ledger`, the CLI's ledger (the same file `assess invite bulk` and `assess employees upsert` keep for the
 * same service and key): a row it confirmed is not sent again, and a row of a request whose answer was lost is
 * not resent unless `retryUncertain`. Without it, a ledger of the run's own in a temporary folder, deleted
 * after. The rows and their outcomes are held in memory: files of millions of rows are the CLI's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Json, toJson } from "../api/json.js";
import * as s from "../api/schemas.js";
import { keyFingerprint, type LedgerTarget, ledgerDir } from "../bulk/engine/ledger.js";
import { runBulk } from "../bulk/engine/run.js";
import type { BulkResult, BulkStopped } from "../bulk/engine/summary.js";
import type { BulkEntry, ChunkAnswer, SentRow } from "../bulk/engine/types.js";
import { contentKey } from "../bulk/rows/employees.js";
import { InterruptedError, UsageError } from "../errors.js";
import type * as z from "../parse/zod.js";
import type { BulkOptions, BulkOutcome, RowOutcome, RowStatus } from "./types.js";

/** A checked row: its item's JSON text, and what the ledger and the dedupe know it by. */
export interface Prepared<T> {
  json: Json<T>;
  /** Ledger identity: a confirmed key is never sent again. */
  key: string;
  /** The item's identity, when it is not `key` (an employee's e-mail): one dedupe key with two keys conflicts. */
  dedupeKey?: string;
  /** The e-mail, for messages. */
  label: string;
}

export interface BulkSpec<R, T> {
  kind: "invite" | "upsert";
  maxChunk: number;
  /** The row checked and serialized, or why it is invalid. */
  prepare(row: R): Prepared<T> | { invalid: string };
  /** Where the rows go, as the ledger names it. */
  target(): LedgerTarget;
  /** The ledger folder of `ledger: true`. */
  defaultLedgerDir(): string;
  /** Sends one chunk (its rows' JSON, labelled by e-mail) through the operation's request function. */
  send(rows: readonly SentRow<T>[]): Promise<ChunkAnswer | undefined>;
}

export { ledgerDir };

/** Where requests go, as bulk ledgers name it: the base URL and the key's fingerprint, never the key. */
export function ledgerTarget(
  options: { baseUrl: string; skillsBaseUrl: string; apiKey: string },
  api: "assess" | "skills",
): LedgerTarget {
  return {
    baseUrl: api === "skills" ? options.skillsBaseUrl : options.baseUrl,
    key: keyFingerprint(options.apiKey),
  };
}

const STATUSES: RowStatus[] = [
  "sent",
  "failed",
  "uncertain",
  "invalid",
  "duplicate",
  "alreadyDone",
  "unsent",
];

export async function runRows<R, T>(
  input: Iterable<R> | AsyncIterable<R>,
  spec: BulkSpec<R, T>,
  options: BulkOptions = {},
): Promise<BulkOutcome<R>> {
  const chunkSize = options.chunkSize ?? spec.maxChunk;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > spec.maxChunk) {
    throw new UsageError(`chunkSize must be a whole number from 1 to ${spec.maxChunk}, got ${chunkSize}`);
  }
  const concurrency = options.concurrency ?? 2;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
    throw new UsageError(`concurrency must be a whole number from 1 to 16, got ${concurrency}`);
  }

  // Rows are numbered from 1 for the engine (its lines); outcomes are indexed from 0.
  const outcomes: RowOutcome<R>[] = [];
  const entries: BulkEntry<T>[] = [];
  for await (const row of input) {
    const index = outcomes.length;
    let checked: Prepared<T> | { invalid: string };
    try {
      checked = spec.prepare(row);
    } catch (error) {
      checked = { invalid: error instanceof Error ? error.message : String(error) };
    }
    outcomes.push({ index, row, status: "unsent" });
    entries.push(
      "invalid" in checked
        ? { invalid: { line: index + 1, error: checked.invalid } }
        : { row: { line: index + 1, group: "", ...checked } },
    );
  }
  const result: BulkOutcome<R> = { rows: outcomes, counts: counts(outcomes), unmatched: [] };
  if (outcomes.length === 0) return result;

  const own = options.ledger ? undefined : mkdtempSync(join(tmpdir(), "assess-bulk-"));
  const dir = own ?? (typeof options.ledger === "string" ? options.ledger : spec.defaultLedgerDir());
  const finish = (bulk: BulkResult | undefined): void => {
    result.counts = counts(outcomes);
    result.unmatched = bulk?.unmatched ?? [];
    if (!own && bulk?.ledgers[0]) result.ledger = bulk.ledgers[0];
  };
  let bulk: BulkResult;
  try {
    bulk = await runBulk<T>({
      kind: spec.kind,
      read: async function* () {
        yield entries;
      },
      target: () => spec.target(),
      ledgerDir: dir,
      chunkSize,
      maxChunk: spec.maxChunk,
      concurrency,
      skipInvalid: true,
      restart: options.restart,
      retryUncertain: options.retryUncertain,
      signal: options.signal,
      conflictReason: (line) => `conflicts with rows[${line - 1}]: the same e-mail with other values`,
      send: (_group, rows) => spec.send(rows),
      onRow: (line, fate, error) => {
        const outcome = outcomes[line - 1]!;
        outcome.status = fate;
        if (error !== undefined) outcome.error = error;
      },
    });
  } catch (error) {
    finish((error as BulkStopped).bulk);
    throw Object.assign(error as object, { outcome: result });
  } finally {
    if (own) rmSync(own, { recursive: true, force: true });
  }
  finish(bulk);
  if (bulk.interrupted) throw Object.assign(new InterruptedError(), { outcome: result });
  return result;
}

function counts<R>(outcomes: RowOutcome<R>[]): Record<RowStatus, number> {
  const result = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<RowStatus, number>;
  for (const { status } of outcomes) result[status]++;
  return result;
}

// The two operations' rows.

/** A bulk invite's settings, checked before any row is read: every chunk would carry them. */
export function checkInviteSettings(settings: z.input<typeof s.BulkInviteSettings>): s.BulkInviteSettings {
  const parsed = s.BulkInviteSettings.safeParse(settings);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `settings.${issue.path.map(String).join(".")}: ${issue.message}`,
  );
  throw new UsageError(`Invalid bulk invite settings: ${lines.join("; ")}`, undefined, lines);
}

/** A candidate of a bulk invite: checked against the API layer's schemas, keyed by lower-cased e-mail. */
export function prepareCandidate(row: s.BulkCandidate): Prepared<s.BulkCandidate> | { invalid: string } {
  const problems: string[] = [];
  const email = typeof row?.email === "string" ? row.email.trim() : "";
  const name = typeof row?.name === "string" ? row.name.trim() : "";
  if (!s.Email.safeParse(email).success)
    problems.push(`email: ${email === "" ? "empty" : `"${email}" is not a valid e-mail address`}`);
  if (!s.BulkCandidateName.safeParse(name).success) problems.push("name: empty");
  if (problems.length > 0) return { invalid: problems.join("; ") };
  return {
    json: toJson<s.BulkCandidate>({ email, name }),
    key: email.toLowerCase(),
    label: email,
  };
}

/**
 * An employee of an upsert: checked against the API layer's schema, keyed by its content (a rerun skips an
 * unchanged employee, sends a changed one), deduplicated by lower-cased e-mail.
 */
export function prepareEmployee(
  row: z.input<typeof s.EmployeeUpsertItem>,
): Prepared<s.EmployeeUpsertItem> | { invalid: string } {
  const parsed = s.EmployeeUpsertItem.safeParse(row);
  if (!parsed.success) {
    return {
      invalid: parsed.error.issues
        .map((issue) => `${issue.path.map(String).join(".") || "item"}: ${issue.message}`)
        .join("; "),
    };
  }
  const item = parsed.data;
  const json = toJson(item);
  const lower = item.email.toLowerCase();
  return {
    json,
    key: contentKey(
      { ...item, email: lower },
      item.email === lower ? json : JSON.stringify({ ...item, email: lower }),
    ),
    dedupeKey: lower,
    label: item.email,
  };
}

/**
 * An upsert's answer names the employees it refused by e-mail; each maps back to the row that sent it (`rows`:
 * the chunk's, in order, labelled by e-mail). The index of e-mails is made only for an answer that names some:
 * most name none (made for every request, it took 0.06–0.2 s a million rows).
 */
export function readUpsertAnswer(
  rows: readonly { label: string }[],
  answer: { failed?: Array<{ email?: string | null; errors?: string | string[] | null }> | null },
): ChunkAnswer {
  if (!answer.failed?.length) return { failed: [], unmatched: [] };
  const index = new Map(rows.map((row, i) => [row.label.toLowerCase(), i]));
  const failed: NonNullable<ChunkAnswer["failed"]> = [];
  const unmatched: string[] = [];
  for (const entry of answer.failed ?? []) {
    const error =
      (Array.isArray(entry.errors) ? entry.errors.join("; ") : entry.errors) || "refused by the service";
    const i = index.get(String(entry.email ?? "").toLowerCase());
    if (i === undefined) unmatched.push(`${entry.email ?? "(no e-mail)"}: ${error}`);
    else failed.push({ index: i, error });
  }
  return { failed, unmatched };
}
