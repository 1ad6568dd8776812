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
import type * as s from "../api/schemas.js";
import { ledgerDir } from "../bulk/engine/ledger.js";
import { runBulk } from "../bulk/engine/run.js";
import type { BulkResult, BulkStopped } from "../bulk/engine/summary.js";
import { entriesOf, type Job } from "../bulk/jobs/index.js";
import { inviteJob } from "../bulk/jobs/invite.js";
import { upsertJob } from "../bulk/jobs/upsert.js";
import { InterruptedError, UsageError } from "../errors.js";
import type * as z from "../parse/zod.js";
import type { BulkOptions, BulkOutcome, InviteSettings, RowOutcome, RowStatus } from "./types.js";

type Employee = z.input<typeof s.EmployeeUpsertItem>;

/** `client.invitations.bulk`: the settings are checked before any row is read. */
export function inviteRows(
  api: Api,
  env: NodeJS.ProcessEnv,
  testId: number,
  rows: Iterable<s.BulkCandidate> | AsyncIterable<s.BulkCandidate>,
  { settings = {}, ...options }: BulkOptions & { settings?: InviteSettings } = {},
) {
  return runRows(rows, inviteJob({ api }, settings), String(testId), env, options);
}

export function upsertRows(
  api: Api,
  env: NodeJS.ProcessEnv,
  rows: Iterable<Employee> | AsyncIterable<Employee>,
  options: BulkOptions = {},
) {
  return runRows<Employee, s.EmployeeUpsertItem>(rows, upsertJob({ api }), "", env, options);
}

/** Rows of `group` (a test's, for invites) through `job`, held in memory, one outcome each. */
async function runRows<R, T>(
  input: Iterable<R> | AsyncIterable<R>,
  job: Job<R, T>,
  group: string,
  env: NodeJS.ProcessEnv,
  options: BulkOptions,
): Promise<BulkOutcome<R>> {
  const { maxChunk } = job;
  const chunkSize = upTo("chunkSize", options.chunkSize ?? maxChunk, maxChunk);
  const concurrency = upTo("concurrency", options.concurrency ?? 2, 16);

  const given: R[] = [];
  for await (const row of input) given.push(row);
  // Rows are numbered from 1 for the engine (its lines); outcomes are indexed from 0.
  const entries = entriesOf(job, given, group);
  const outcomes = given.map((row, index): RowOutcome<R> => ({ index, row, status: "unsent" }));
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
      ...job,
      read: () => [entries],
      ledgerDir: own ?? (typeof options.ledger === "string" ? options.ledger : ledgerDir(env)),
      chunkSize,
      maxChunk,
      concurrency,
      skipInvalid: true,
      restart: options.restart,
      retryUncertain: options.retryUncertain,
      signal: options.signal,
      conflictReason: (line) => `conflicts with rows[${line - 1}]: the same e-mail with other values`,
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

function counts<R>(outcomes: RowOutcome<R>[]): Record<RowStatus, number> {
  const result = { sent: 0, failed: 0, uncertain: 0, invalid: 0, duplicate: 0, alreadyDone: 0, unsent: 0 };
  for (const { status } of outcomes) result[status]++;
  return result;
}
