/**
 * Bulk invites and upserts from code, rows in, one outcome per row out, through the CLI's bulk engine
 * (bulk/engine/run.ts): every row checked before the first request, repeats sent once, conflicting rows of one
 * employee not sent, the rest in chunks through `Api.bulkInvite` / `Api.upsertEmployees`.
 *
 * With `ledger`, the CLI's ledger for the same service and key: a confirmed row is not sent again, nor (unless
 * `retryUncertain`) a row whose answer was lost. Without it, a ledger of the run's own in a temporary folder.
 * Rows and outcomes are held in memory: files of millions of rows are the CLI's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Api } from "../api/endpoints.js";
import { OPERATIONS } from "../api/operations/index.js";
import * as s from "../api/schemas.js";
import { keyFingerprint, type LedgerTarget, ledgerDir } from "../bulk/engine/ledger.js";
import { runBulk } from "../bulk/engine/run.js";
import type { BulkResult, BulkStopped } from "../bulk/engine/summary.js";
import type { BulkEntry, BulkRow, ChunkAnswer, SentRow } from "../bulk/engine/types.js";
import { checkEmployee } from "../bulk/rows/employees.js";
import { candidateProblems, candidateRow } from "../bulk/rows/invites.js";
import { InterruptedError, UsageError } from "../errors.js";
import { emailKey } from "../identity.js";
import type * as z from "../parse/zod.js";
import type { BulkOptions, BulkOutcome, InviteSettings, RowOutcome, RowStatus } from "./types.js";

/** A checked row: its item's JSON text, and what the ledger and the dedupe know it by. */
type Prepared<T> = Pick<BulkRow<T>, "json" | "key" | "dedupeKey" | "label">;

interface BulkSpec<R, T> {
  kind: "invite" | "upsert";
  prepare(row: R): Prepared<T> | { invalid: string };
  target: LedgerTarget;
  send(rows: readonly SentRow<T>[]): Promise<ChunkAnswer | undefined>;
}

type Employee = z.input<typeof s.EmployeeUpsertItem>;

/** `client.invitations.bulk`: the settings are checked before any row is read. */
export function inviteRows(
  api: Api,
  env: NodeJS.ProcessEnv,
  testId: number,
  rows: Iterable<s.BulkCandidate> | AsyncIterable<s.BulkCandidate>,
  { settings = {}, ...options }: BulkOptions & { settings?: InviteSettings } = {},
) {
  const send = sendInvites(api, testId, checkInviteSettings(settings));
  const target = { ...ledgerTarget(api, "assess"), testId };
  return runRows(rows, { kind: "invite", prepare: prepareCandidate, target, send }, env, options);
}

export function upsertRows(
  api: Api,
  env: NodeJS.ProcessEnv,
  rows: Iterable<Employee> | AsyncIterable<Employee>,
  options: BulkOptions = {},
) {
  const send = sendEmployees(api);
  const target = ledgerTarget(api, "skills");
  return runRows<Employee, s.EmployeeUpsertItem>(
    rows,
    { kind: "upsert", prepare: checkEmployee, target, send },
    env,
    options,
  );
}

/** Where requests go, as bulk ledgers name it: the base URL and the key's fingerprint, never the key. */
function ledgerTarget(api: Api, which: "assess" | "skills"): LedgerTarget {
  const { baseUrl, skillsBaseUrl, apiKey } = api.client.options;
  return { baseUrl: which === "skills" ? skillsBaseUrl : baseUrl, key: keyFingerprint(apiKey) };
}

async function runRows<R, T>(
  input: Iterable<R> | AsyncIterable<R>,
  spec: BulkSpec<R, T>,
  env: NodeJS.ProcessEnv,
  options: BulkOptions,
): Promise<BulkOutcome<R>> {
  const maxChunk = OPERATIONS[spec.kind === "invite" ? "bulkInvite" : "upsertEmployees"].limits.items;
  const chunkSize = upTo("chunkSize", options.chunkSize ?? maxChunk, maxChunk);
  const concurrency = upTo("concurrency", options.concurrency ?? 2, 16);

  // Rows are numbered from 1 for the engine (its lines); outcomes are indexed from 0.
  const outcomes: RowOutcome<R>[] = [];
  const entries: BulkEntry<T>[] = [];
  for await (const row of input) {
    let checked: Prepared<T> | { invalid: string };
    try {
      checked = spec.prepare(row);
    } catch (error) {
      checked = { invalid: error instanceof Error ? error.message : String(error) };
    }
    entries.push(entryOf(checked, outcomes.length));
    outcomes.push({ index: outcomes.length, row, status: "unsent" });
  }
  const result: BulkOutcome<R> = { rows: outcomes, counts: counts(outcomes), unmatched: [] };
  if (outcomes.length === 0) return result;

  const own = options.ledger ? undefined : mkdtempSync(join(tmpdir(), "assess-bulk-"));
  const finish = (bulk: BulkResult | undefined): void => {
    result.counts = counts(outcomes);
    result.unmatched = bulk?.unmatched ?? [];
    if (!own && bulk?.ledgers[0]) result.ledger = bulk.ledgers[0];
  };
  let bulk: BulkResult;
  try {
    bulk = await runBulk<T>({
      kind: spec.kind,
      read: () => [entries],
      target: () => spec.target,
      ledgerDir: own ?? (typeof options.ledger === "string" ? options.ledger : ledgerDir(env)),
      chunkSize,
      maxChunk,
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

/** An option's value, refused unless a whole number from 1 to `max`. */
function upTo(name: string, value: number, max: number): number {
  if (Number.isInteger(value) && value >= 1 && value <= max) return value;
  throw new UsageError(`${name} must be a whole number from 1 to ${max}, got ${value}`);
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

function counts<R>(outcomes: RowOutcome<R>[]): Record<RowStatus, number> {
  const result = { sent: 0, failed: 0, uncertain: 0, invalid: 0, duplicate: 0, alreadyDone: 0, unsent: 0 };
  for (const { status } of outcomes) result[status]++;
  return result;
}

// The two operations' rows and requests, shared with `assess mcp`'s bulk tools.

/** A bulk invite's settings, checked before any row is read: every chunk would carry them. */
export function checkInviteSettings(settings: InviteSettings): s.BulkInviteSettings {
  const parsed = s.BulkInviteSettings.safeParse(settings);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `settings.${issue.path.map(String).join(".")}: ${issue.message}`,
  );
  throw new UsageError(`Invalid bulk invite settings: ${lines.join("; ")}`, undefined, lines);
}

/** A candidate of a bulk invite: checked and keyed as a file's rows are (bulk/rows/invites.ts). */
export function prepareCandidate(row: s.BulkCandidate): Prepared<s.BulkCandidate> | { invalid: string } {
  const email = typeof row?.email === "string" ? row.email.trim() : "";
  const name = typeof row?.name === "string" ? row.name.trim() : "";
  const problems = candidateProblems(email, name);
  return problems.length > 0 ? { invalid: problems.join("; ") } : candidateRow(email, name);
}

/** Sends one chunk of a bulk invite; the service's `false` refuses the whole chunk. */
export function sendInvites(api: Api, testId: number, settings: s.BulkInviteSettings) {
  return async (rows: readonly SentRow<s.BulkCandidate>[]): Promise<ChunkAnswer | undefined> =>
    (await api.bulkInvite(testId, settings, rows))
      ? undefined
      : { refused: "the service answered false: no candidate of this request was invited" };
}

/** Sends one chunk of an upsert. */
export function sendEmployees(api: Api) {
  return async (rows: readonly SentRow<s.EmployeeUpsertItem>[]) =>
    readUpsertAnswer(rows, await api.upsertEmployees(rows));
}

/**
 * An upsert's answer names the employees it refused by e-mail; each maps back to the row that sent it (`rows`:
 * the chunk's, in order), the e-mails compared as src/identity.ts keys them. The index of e-mails is made only for an answer that names some (most name none).
 */
export function readUpsertAnswer(
  rows: readonly { label: string }[],
  answer: { failed?: Array<{ email?: string | null; errors?: string | string[] | null }> | null },
): ChunkAnswer {
  if (!answer.failed?.length) return { failed: [], unmatched: [] };
  const index = new Map(rows.map((row, i) => [emailKey(row.label) ?? row.label, i]));
  const failed: NonNullable<ChunkAnswer["failed"]> = [];
  const unmatched: string[] = [];
  for (const entry of answer.failed) {
    const error =
      (Array.isArray(entry.errors) ? entry.errors.join("; ") : entry.errors) || "refused by the service";
    const key = emailKey(entry.email);
    const i = key === undefined ? undefined : index.get(key);
    if (i === undefined) unmatched.push(`${entry.email ?? "(no e-mail)"}: ${error}`);
    else failed.push({ index: i, error });
  }
  return { failed, unmatched };
}
