/** What the bulk commands share around `runBulk`: where jobs send, the progress bar, printing a stopped run. */
import type { Transport } from "../../api/transport.js";
import { ledgerDir } from "../../bulk/engine/ledger.js";
import { type BulkJob, runBulk } from "../../bulk/engine/run.js";
import type { BulkResult } from "../../bulk/engine/summary.js";
import type { Service } from "../../bulk/jobs/index.js";
import type { Context } from "../../context.js";
import { formatCount, type Progress } from "../../output/progress.js";
import { printBulkResult, type Wording } from "./bulk-report.js";

/** Where a command's bulk jobs (bulk/jobs/) send: its client, the embedded sandbox with `--sandbox`. */
export async function serviceOf(ctx: Context): Promise<Service> {
  return { api: (await ctx.client()).api, embeddedSandbox: ctx.flags.sandbox === true };
}

/** What every run takes from the context: ledgers' folder, Ctrl-C, --dry-run, --debug, progress, notices. */
function fromContext(ctx: Context, client: Transport, progress: Progress, wording: Wording) {
  return {
    ledgerDir: ledgerDir(ctx.io.env),
    checkWorker: ctx.checkWorker,
    splitFrom: ctx.splitFrom,
    signal: ctx.signal,
    dryRun: ctx.dryRun,
    onProgress: (p) => progress.update(p),
    watchRateLimits: (listener) => client.onRateLimited(listener),
    onNotice: (message) => ctx.warn(message),
    onDebug: ctx.debug,
    onStopping: ({ requests, rows }) => ctx.warn(stoppingMessage(requests, rows, client.options.timeoutMs)),
    stopNow: ctx.stopNow,
    // Synchronous: the process exits right after.
    onStoppedNow: (result) => {
      progress.done();
      printBulkResult(ctx, result, wording, "now");
    },
  } satisfies Partial<BulkJob<unknown>>;
}

/** What the first Ctrl-C waits for, said at once, and what a second one would leave. */
function stoppingMessage(requests: number, rows: number, timeoutMs: number): string {
  if (requests === 0) return "Stopping: no request is in flight, and no other will be sent.";
  const timeout = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  const them = `${formatCount(requests)} request${requests === 1 ? "" : "s"} in flight (${formatCount(rows)} row${rows === 1 ? "" : "s"})`;
  return `Stopping: waiting up to ${timeout} (--timeout) for the ${them} to be answered, so that their outcome is recorded; no other request will be sent. Ctrl-C again stops at once and leaves those rows uncertain.`;
}

/** A job as a command gives it: the rest comes from the context. */
export type CommandJob<T> = Omit<BulkJob<T>, keyof ReturnType<typeof fromContext>> &
  Partial<Pick<BulkJob<T>, "ledgerDir">>;

/**
 * Runs a job with a progress bar and prints the result (`bulkExitCode` makes it an exit code); a run stopped by an
 * error prints what it did before rethrowing.
 */
export async function runReported<T>(
  ctx: Context,
  job: CommandJob<T>,
  wording: Wording,
): Promise<BulkResult> {
  const client = (await ctx.client()).api.transport;
  const progress = ctx.progress();
  // One JSON document per command: a dry run's requests go into the summary, not before it.
  const requests = ctx.dryRun && ctx.out.isJson && wording.json === undefined ? [] : undefined;
  ctx.dryRunRequests = requests;
  const withRequests = (result: BulkResult) => (requests ? Object.assign(result, { requests }) : result);
  try {
    const result = withRequests(await runBulk<T>({ ...fromContext(ctx, client, progress, wording), ...job }));
    progress.done();
    if (!wording.deferred) printBulkResult(ctx, result, wording);
    return result;
  } catch (error) {
    progress.done();
    const partial = (error as { bulk?: BulkResult }).bulk;
    if (partial && partial.chunks.total > 0) printBulkResult(ctx, withRequests(partial), wording, "error");
    throw error;
  } finally {
    ctx.dryRunRequests = undefined;
  }
}
