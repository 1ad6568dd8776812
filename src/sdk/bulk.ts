/**
 * Bulk invites and upserts from code: rows in, one outcome per row out. Every row is read and checked before
 * the first request (an invalid row is reported, not sent), repeats are sent once, rows of one employee that
 * differ conflict (neither is sent), the rest go in chunks of ≤ chunkSize through the one request function of
 * each operation (api/endpoints.ts: `bulkInvite`, `upsertEmployees`), a few at a time.
 *
 * With `ledger`, the CLI's ledger (bulk/engine/ledger.ts, the same file `assess invite bulk` and `assess
 * employees upsert` keep for the same service and key): a row it confirmed is not sent again, and a row of a
 * request whose answer was lost is not resent unless `retryUncertain`.
 *
 * The CLI's bulk commands run files of millions of rows through the engine (bulk/engine/run.ts: spool,
 * validate-first pass over the file, rejects file); this loop holds the rows in memory, as it returns an
 * outcome for each.
 */
import { randomBytes } from "node:crypto";
import { type Json, toJson } from "../api/json.js";
import * as s from "../api/schemas.js";
import { DONE, hashHalves, hashKey, UNCERTAIN } from "../bulk/engine/keyset.js";
import { keyFingerprint, Ledger, type LedgerTarget, ledgerDir } from "../bulk/engine/ledger.js";
import { mapOrdered } from "../bulk/engine/map-ordered.js";
import type { ChunkAnswer } from "../bulk/engine/types.js";
import { contentKey } from "../bulk/rows/employees.js";
import {
  ApiError,
  AuthError,
  CliError,
  InterruptedError,
  NetworkError,
  UncertainError,
  UsageError,
} from "../errors.js";
import type * as z from "../parse/zod.js";
import type { BulkOptions, BulkOutcome, RowOutcome, RowStatus } from "./types.js";

/** Thrown errors that stop a run carry what it did before it stopped. */
export interface BulkStopped<R> {
  outcome?: BulkOutcome<R>;
}

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
  /** Sends one chunk through the operation's request function. */
  send(rows: readonly Prepared<T>[]): Promise<ChunkAnswer | undefined>;
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

  // Every row is read and checked before anything is sent.
  const outcomes: RowOutcome<R>[] = [];
  const prepared: Array<Prepared<T> | undefined> = [];
  for await (const row of input) {
    const index = outcomes.length;
    let checked: Prepared<T> | { invalid: string };
    try {
      checked = spec.prepare(row);
    } catch (error) {
      checked = { invalid: error instanceof Error ? error.message : String(error) };
    }
    if ("invalid" in checked) {
      outcomes.push({ index, row, status: "invalid", error: checked.invalid });
      prepared.push(undefined);
    } else {
      outcomes.push({ index, row, status: "unsent" });
      prepared.push(checked);
    }
  }
  dedupe(outcomes, prepared);

  let ledger: Ledger | undefined;
  if (options.ledger) {
    const dir = typeof options.ledger === "string" ? options.ledger : spec.defaultLedgerDir();
    ledger = await Ledger.open(dir, spec.kind, spec.target(), {
      restart: options.restart,
      expected: outcomes.length,
    });
  }
  const result: BulkOutcome<R> = {
    rows: outcomes,
    counts: counts(outcomes),
    unmatched: [],
    ledger: ledger?.path,
  };
  try {
    const toSend: number[] = [];
    for (const [index, item] of prepared.entries()) {
      if (!item) continue;
      if (ledger) {
        hashKey(item.key);
        const flags = ledger.keys.get(hashHalves.hi, hashHalves.lo);
        if (flags & DONE) {
          outcomes[index]!.status = "alreadyDone";
          continue;
        }
        if (flags & UNCERTAIN && !options.retryUncertain) {
          outcomes[index]!.status = "uncertain";
          outcomes[index]!.error =
            "an earlier run sent it and its answer was lost: it may have been processed (retryUncertain sends it again)";
          continue;
        }
      }
      toSend.push(index);
    }
    const chunks: number[][] = [];
    for (let i = 0; i < toSend.length; i += chunkSize) chunks.push(toSend.slice(i, i + chunkSize));

    const runId = randomBytes(4).toString("hex");
    let fatal: unknown;
    const sendChunk = async (indexes: number[], seq: number): Promise<void> => {
      if (fatal !== undefined || options.signal?.aborted) return;
      const rows = indexes.map((i) => prepared[i]!);
      const id = `${runId}-${seq}`;
      if (ledger) {
        const hashes = new Uint32Array(rows.length * 2);
        rows.forEach((row, i) => {
          hashKey(row.key);
          hashes[2 * i] = hashHalves.hi;
          hashes[2 * i + 1] = hashHalves.lo;
        });
        await ledger.prepare(id, hashes, [indexes[0]! + 1, indexes.at(-1)! + 1]);
        await ledger.begin(id);
      }
      let answer: ChunkAnswer | undefined;
      try {
        answer = await spec.send(rows);
      } catch (error) {
        const stops =
          error instanceof AuthError ||
          error instanceof NetworkError ||
          (error instanceof ApiError && (error.status === 401 || error.status === 403)) ||
          !(error instanceof CliError);
        if (stops) {
          fatal ??= error;
          await ledger?.end(id, { t: "fail", error: messageOf(error) });
          return;
        }
        const uncertain = error instanceof UncertainError;
        for (const i of indexes) {
          outcomes[i]!.status = uncertain ? "uncertain" : "failed";
          outcomes[i]!.error = messageOf(error);
        }
        await ledger?.end(
          id,
          uncertain ? { t: "uncertain", error: messageOf(error) } : { t: "fail", error: messageOf(error) },
        );
        return;
      }
      if (answer?.refused) {
        for (const i of indexes) {
          outcomes[i]!.status = "failed";
          outcomes[i]!.error = answer.refused;
        }
        await ledger?.end(id, { t: "fail", error: answer.refused });
        return;
      }
      result.unmatched.push(...(answer?.unmatched ?? []));
      const failed = new Map((answer?.failed ?? []).map((f) => [f.index, f.error]));
      indexes.forEach((i, at) => {
        const error = failed.get(at);
        outcomes[i]!.status = error === undefined ? "sent" : "failed";
        if (error !== undefined) outcomes[i]!.error = error;
      });
      await ledger?.end(id, { t: "ok", ...(failed.size > 0 ? { failed: [...failed.keys()] } : {}) });
    };
    for await (const _ of mapOrdered(chunks, concurrency, sendChunk)) {
      // Chunks are recorded in outcomes as they are answered; nothing to collect here.
    }
    result.counts = counts(outcomes);
    if (fatal !== undefined) throw Object.assign(fatal as object, { outcome: result });
    if (options.signal?.aborted) throw Object.assign(new InterruptedError(), { outcome: result });
    return result;
  } finally {
    await ledger?.close();
  }
}

/**
 * Rows with the same key (and dedupe key) are one item: the first is sent, the others are duplicates. Rows with
 * one dedupe key and different keys (the same employee with other values) conflict: none of them is sent.
 */
function dedupe<R, T>(outcomes: RowOutcome<R>[], prepared: Array<Prepared<T> | undefined>): void {
  const first = new Map<string, number>();
  const conflicted = new Set<string>();
  for (const [index, item] of prepared.entries()) {
    if (!item) continue;
    const identity = item.dedupeKey ?? item.key;
    const earlier = first.get(identity);
    if (earlier === undefined) {
      first.set(identity, index);
    } else if (prepared[earlier]!.key === item.key) {
      outcomes[index]!.status = "duplicate";
      outcomes[index]!.error = `the same as row ${earlier}`;
      prepared[index] = undefined;
    } else {
      conflicted.add(identity);
    }
  }
  if (conflicted.size === 0) return;
  for (const [index, item] of prepared.entries()) {
    const identity = item && (item.dedupeKey ?? item.key);
    if (identity === undefined || !conflicted.has(identity)) continue;
    const earlier = first.get(identity)!;
    outcomes[index]!.status = "invalid";
    outcomes[index]!.error =
      index === earlier
        ? `conflicts with a later row: the same ${item!.label} with other values`
        : `conflicts with row ${earlier}: the same ${item!.label} with other values`;
    prepared[index] = undefined;
  }
}

function counts<R>(outcomes: RowOutcome<R>[]): Record<RowStatus, number> {
  const result = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<RowStatus, number>;
  for (const { status } of outcomes) result[status]++;
  return result;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
