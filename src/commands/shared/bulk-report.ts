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
}

/** Rows (or ids) listed per section on stderr; the JSON output and the rejects file have them all. */
export const SHOWN = 20;

/** `stopped`: an error ended the run, and its exit code is the error's (4 for a refused key), not this result's. */
export function printBulkResult(ctx: Context, r: BulkResult, w: Wording, stopped = false): void {
  const code = bulkExitCode(r);
  if (w.json === undefined && (ctx.out.isJson || (code === ExitCode.partial && !stopped))) ctx.out.json(r);
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

  // The parts add up to the file's rows: a row sent but refused or uncertain is not also counted as sent.
  const accepted = r.sent - r.failed - uncertainSentNow(r);
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
      "check them in the service; --retry-uncertain sends them again (a row that did arrive would then arrive twice).",
    );
  }

  if (r.dryRun) {
    ctx.info(
      `[dry-run] would send ${count(r.wouldSend ?? 0, w.noun)} in ${count(r.chunks.total, ["request", "requests"])}; nothing was sent`,
    );
  } else if (stopped) {
    ctx.warn("Stopped before the end by the error below: fix its cause, then run the same command again.");
  } else if (r.interrupted) {
    ctx.warn(
      `Interrupted: ${count(r.sent - r.uncertain, w.noun)} recorded in the ledger; run the same command again to resume.`,
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
    ctx.warn(
      `Finished with problems (exit ${code}): rerun the same command to resend refused rows; confirmed ones are skipped.`,
    );
  }
}

/** Rows this run sent whose outcome is unknown (`uncertain` also counts rows an earlier run left so). */
function uncertainSentNow(r: BulkResult): number {
  const leftEarlier = Math.max(0, r.valid - r.duplicates - r.alreadyDone - r.sent - r.unsent);
  return Math.min(Math.max(0, r.uncertain - leftEarlier), r.sent - r.failed);
}
