/** How a bulk run went: a JSON summary on stdout (with -o json, and on exit 3), a human one on stderr. */
import { type BulkResult, bulkExitCode, type RowReport } from "../../bulk/engine/summary.js";
import type { Context } from "../../context.js";
import { ExitCode } from "../../errors.js";
import { formatCount } from "../../output/progress.js";

/** A summary's words: "Invited" 3 ["candidate", "candidates"] "to test 1001" (defaults: Sent, rows). */
export interface Wording {
  verb?: string;
  noun?: [string, string];
  target?: string;
  /** The input, for `file:line` references, unless `locate` says where a row is (a sheet's row). */
  inputName?: string;
  locate?(line: number): string;
  /** When rows go to several groups: what a group is ("test"), shown beside each listed row. */
  groupLabel?: string;
  /** JSON summary on stdout with -o json and on exit 3 (default), or never (a command with a summary of its own). */
  json?: "never";
  /** What a held row is (the job's `hold` filter), default "held back". */
  held?: string;
  /**
   * What a person can do about rows of unknown outcome: how to find out whether they arrived, and what
   * --retry-uncertain would do to those that did.
   */
  uncertain?: string;
}

/** How a run ended early: an error stopped it, or the process exits without waiting (a second Ctrl-C). */
export type Stop = "error" | "now";

/** Rows (or ids) listed per section on stderr; the JSON output and the rejects file have them all. */
export const SHOWN = 20;

/**
 * `stop`: an error ended the run, and its exit code is the error's (4 for a refused key), not this result's; or
 * the process exits at once (130) without waiting for the requests still out.
 */
export function printBulkResult(ctx: Context, r: BulkResult, w: Wording, stop?: Stop): void {
  const code = bulkExitCode(r);
  if (w.json === undefined && jsonSummary(ctx, code === ExitCode.partial && stop === undefined))
    ctx.out.json(r);
  const count = (n: number, noun: [string, string] = ["row", "rows"]) =>
    `${formatCount(n)} ${n === 1 ? noun[0] : noun[1]}`;
  const where = (row: RowReport) =>
    w.locate ? w.locate(row.line) : w.inputName ? `${w.inputName}:${row.line}` : `line ${row.line}`;
  const list = (rows: RowReport[], omitted: number, total: number) => {
    for (const row of rows.slice(0, SHOWN)) {
      const group = row.group && w.groupLabel ? ` (${w.groupLabel} ${row.group})` : "";
      ctx.info(`  ${where(row)}  ${row.label}${group}${row.error ? `: ${row.error}` : ""}`);
    }
    const more = total - Math.min(rows.length, SHOWN);
    if (more > 0)
      ctx.info(
        `  … and ${formatCount(more)} more${omitted > 0 || rows.length > SHOWN ? " (see the JSON summary)" : ""}`,
      );
  };

  // The parts add up to the file's rows: a row sent but refused is not also counted as sent.
  const accepted = r.sent - r.failed;
  const parts = [
    r.dryRun
      ? `${r.wouldSend ?? 0} to send`
      : accepted === r.sent
        ? `${formatCount(r.sent)} sent`
        : accepted > 0
          ? `${formatCount(accepted)} accepted`
          : undefined,
    r.alreadyDone > 0 ? `${formatCount(r.alreadyDone)} already done` : undefined,
    r.duplicates > 0 ? `${count(r.duplicates, ["duplicate", "duplicates"])}` : undefined,
    r.held ? `${formatCount(r.held)} ${w.held ?? "held back"}` : undefined,
    r.invalid > 0 ? `${formatCount(r.invalid)} invalid` : undefined,
    r.uncertain > 0 ? `${formatCount(r.uncertain)} uncertain` : undefined,
    r.failed > 0 ? `${formatCount(r.failed)} refused` : undefined,
    r.unsent > 0 ? `${formatCount(r.unsent)} not sent${r.interrupted ? " (interrupted)" : ""}` : undefined,
  ].filter(Boolean);
  ctx.info(`${w.inputName ? `${w.inputName}: ` : ""}${count(r.rows)}: ${parts.join(", ")}`);
  if (r.chunks.total > 0 && !r.dryRun) {
    const c = r.chunks;
    const detail = [
      `${c.succeeded} succeeded`,
      c.failed > 0 ? `${c.failed} failed` : undefined,
      c.uncertain > 0 ? `${c.uncertain} uncertain` : undefined,
    ].filter(Boolean);
    ctx.info(`${count(c.total, ["request", "requests"])}: ${detail.join(", ")}`);
  }

  if (r.invalid > 0) {
    ctx.warn(
      `${count(r.invalid, ["invalid row was", "invalid rows were"])} skipped${r.rejects ? ` (written to ${r.rejects})` : ""}:`,
    );
    list(r.invalidRows, r.omitted.invalidRows, r.invalid);
  }
  if (r.duplicates > 0) {
    ctx.info(
      `${count(r.duplicates, ["row repeats", "rows repeat"])} an earlier row and ${r.duplicates === 1 ? "was" : "were"} not sent again:`,
    );
    list(r.duplicateRows, r.omitted.duplicateRows, r.duplicates);
  }
  if (r.failed > 0) {
    ctx.warn(
      `${count(r.failed, ["row was", "rows were"])} refused by the service${r.rejects ? ` (written to ${r.rejects})` : ""}:`,
    );
    list(r.failures, r.omitted.failures, r.failed);
  }
  for (const message of r.unmatched.slice(0, SHOWN))
    ctx.warn(`the service reported a failure for no row of the input: ${message}`);
  if (r.uncertain > 0) {
    ctx.warn(
      `${count(r.uncertain, ["row has", "rows have"])} an unknown outcome: the request went out but no answer that could be read came back; not sent again:`,
    );
    list(r.uncertainRows, r.omitted.uncertainRows, r.uncertain);
    ctx.hint(
      w.uncertain ??
        "--retry-uncertain sends them again: a row that did arrive would then arrive twice, so find out first whether they did.",
    );
  }

  if (r.dryRun) {
    ctx.info(
      `[dry-run] would send ${count(r.wouldSend ?? 0, w.noun)} in ${count(r.chunks.total, ["request", "requests"])}; nothing was sent`,
    );
  } else if (stop === "error") {
    ctx.warn("Stopped before the end by the error below: fix its cause, then run the same command again.");
  } else if (stop === "now") {
    ctx.warn(
      `Stopped at once (second Ctrl-C), without waiting for the requests in flight: their rows are among the uncertain ones. Run the same command again to send the ${count(r.unsent, w.noun)} not sent; what the service confirmed is not sent twice.`,
    );
  } else if (r.interrupted) {
    ctx.warn(
      `Interrupted: ${count(r.sent, w.noun)} recorded in the ledger; run the same command again to send the ${formatCount(r.unsent)} not sent.`,
    );
  } else if (code === ExitCode.ok) {
    const confirmed = r.sent - r.failed;
    // Invalid rows skipped (--skip-invalid) are not done: never a ✓ that says there is nothing left.
    const fix = `${count(r.invalid, ["invalid row", "invalid rows"])} still to fix${r.rejects ? ` (in ${r.rejects})` : ""}`;
    if (confirmed > 0)
      ctx.success(`${w.verb ?? "Sent"} ${count(confirmed, w.noun)}${w.target ? ` ${w.target}` : ""}`);
    else if (r.invalid > 0)
      ctx.warn(
        `Nothing sent${r.alreadyDone > 0 ? ": earlier runs already got every valid row confirmed" : ""}; ${fix}, then run the same command again.`,
      );
    else if (r.alreadyDone > 0 && !r.held)
      ctx.success("Nothing to send: earlier runs already got every row confirmed");
    else ctx.success("Nothing was sent");
  } else {
    // Only what applies: a rerun resends refused rows, not uncertain ones.
    const next = [
      r.failed > 0
        ? `run the same command again to resend the ${count(r.failed, ["refused row", "refused rows"])} (confirmed ones are skipped)`
        : undefined,
      r.uncertain > 0
        ? `the ${count(r.uncertain)} of unknown outcome ${r.uncertain === 1 ? "is" : "are"} not sent again unless --retry-uncertain (see above)`
        : undefined,
      r.unmatched.length > 0
        ? `the service reported ${count(r.unmatched.length, ["failure", "failures"])} that match no row (see above)`
        : undefined,
    ].filter(Boolean);
    ctx.warn(`Finished with problems (exit ${code}): ${next.join("; ")}.`);
  }
}

/**
 * Whether the JSON summary goes to stdout: with -o json, and on exit 3 (partial) for scripts, but onto a
 * terminal only when asked (a person reads the summary on stderr; thousands of lines of JSON would bury it).
 */
export function jsonSummary(ctx: Context, partial: boolean): boolean {
  return ctx.out.isJson || (partial && ctx.io.stdout.isTTY !== true);
}
