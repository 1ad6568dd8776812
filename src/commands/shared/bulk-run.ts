/** What the bulk commands share around `runBulk`: the ledger target, the progress bar, printing a stopped run. */
import type { ApiClient, ApiName } from "../../api/client.js";
import { keyFingerprint, ledgerDir } from "../../bulk/engine/ledger.js";
import { type BulkJob, runBulk } from "../../bulk/engine/run.js";
import type { BulkResult } from "../../bulk/engine/summary.js";
import type { Context } from "../../context.js";
import type { Progress } from "../../output/progress.js";
import { printBulkResult, type Wording } from "./bulk-report.js";

/** Where a run's requests go, as its ledger names it: the base URL and the key's fingerprint. */
export async function ledgerTarget(ctx: Context, api: ApiName): Promise<{ baseUrl: string; key: string }> {
  const client = await ctx.apiClient();
  return { baseUrl: ctx.targetBaseUrl(api), key: keyFingerprint(client.options.apiKey) };
}

/** What every run takes from the context: ledgers' folder, Ctrl-C, --dry-run, --debug, progress, notices. */
function fromContext(ctx: Context, client: ApiClient, progress: Progress) {
  return {
    ledgerDir: ledgerDir(ctx.io.env),
    checkWorker: ctx.checkWorker,
    signal: ctx.signal,
    dryRun: ctx.dryRun,
    onProgress: (p) => progress.update(p),
    watchRateLimits: (listener) => client.onRateLimited(listener),
    onNotice: (message) => ctx.warn(message),
    onDebug: ctx.debug,
  } satisfies Partial<BulkJob<unknown>>;
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
  const client = await ctx.apiClient();
  const progress = ctx.progress();
  // One JSON document per command: a dry run's requests go into the summary, not before it.
  const requests = ctx.dryRun && ctx.out.isJson && wording.json === undefined ? [] : undefined;
  ctx.dryRunRequests = requests;
  const withRequests = (result: BulkResult) => (requests ? Object.assign(result, { requests }) : result);
  try {
    const result = withRequests(await runBulk<T>({ ...fromContext(ctx, client, progress), ...job }));
    progress.done();
    printBulkResult(ctx, result, wording);
    return result;
  } catch (error) {
    progress.done();
    const partial = (error as { bulk?: BulkResult }).bulk;
    if (partial && partial.chunks.total > 0) printBulkResult(ctx, withRequests(partial), wording, true);
    throw error;
  } finally {
    ctx.dryRunRequests = undefined;
  }
}
