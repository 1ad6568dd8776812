/** How a bulk run went: a JSON summary on stdout (with -o json, and on exit 3), a human one on stderr. */
import { type BulkResult, bulkExitCode, type RowReport } from "../../bulk/engine/summary.js";
import type { Context } from "../../context.js";
import { ExitCode } from "../../errors.js";
import { SHOWN_ROWS } from "../../output/format.js";
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
  /** The rejects file --rejects named (without --force): while it is there, the same command again is refused. */
  rejectsNamed?: string;
  /** What a held row is (the job's `hold` filter), default "held back". */
  held?: string;
  /**
   * What a person can do about rows of unknown outcome: how to find out whether they arrived, and what
   * --retry-uncertain would do to those that did.
   */
  uncertain?: string;
  /** The caller prints the summary (`runReported` prints only a run an error stopped). */
  deferred?: true;
  /**
   * A second run over rows this one held back (invite bulk --reattempt-finished gives finished candidates a new
   * attempt), counted in this summary: one summary of the input, not one per run.
   */
  also?: { result: BulkResult; sent: string; done: string; verb: string; noun: [string, string] };
}

/** How a run ended early: an error stopped it, or the process exits without waiting (a second Ctrl-C). */
export type Stop = "error" | "now";

/**
 * `stop`: an error ended the run, and its exit code is the error's (4 for a refused key), not this result's; or
 * the process exits at once (130) without waiting for the requests still out.
 */
export function printBulkResult(ctx: Context, given: BulkResult, w: Wording, stop?: Stop): void {
  const extra = w.also?.result;
  const r = extra ? combined(given, extra) : given;
  const code = bulkExitCode(r);
  if (w.json === undefined && jsonSummary(ctx, code === ExitCode.partial && stop === undefined))
    ctx.out.json(r);
  const count = (n: number, noun: [string, string] = ["row", "rows"]) =>
    `${formatCount(n)} ${n === 1 ? noun[0] : noun[1]}`;
  const where = (row: RowReport) =>
    w.locate ? w.locate(row.line) : w.inputName ? `${w.inputName}:${row.line}` : `line ${row.line}`;
  const list = (rows: RowReport[], omitted: number, total: number) => {
    for (const row of rows.slice(0, SHOWN_ROWS)) {
      const group = row.group && w.groupLabel ? ` (${w.groupLabel} ${row.group})` : "";
      ctx.info(`  ${where(row)}  ${row.label}${group}${row.error ? `: ${row.error}` : ""}`);
    }
    const more = total - Math.min(rows.length, SHOWN_ROWS);
    if (more > 0)
      ctx.info(
        `  … and ${formatCount(more)} more${omitted > 0 || rows.length > SHOWN_ROWS ? " (see the JSON summary)" : ""}`,
      );
  };

  // The parts add up to the file's rows: a row sent but refused is not also counted as sent.
  const alsoAccepted = extra ? extra.sent - extra.failed : 0;
  const accepted = r.sent - r.failed - alsoAccepted;
  const sent = r.sent - (extra?.sent ?? 0);
  const parts = [
    r.dryRun
      ? `${r.wouldSend ?? 0} to send`
      : accepted === sent && (accepted > 0 || !extra)
        ? `${formatCount(sent)} sent`
        : accepted > 0
          ? `${formatCount(accepted)} accepted`
          : undefined,
    alsoAccepted > 0 ? `${formatCount(alsoAccepted)} ${w.also?.sent}` : undefined,
    given.alreadyDone > 0 ? `${formatCount(given.alreadyDone)} already done` : undefined,
    extra && extra.alreadyDone > 0 ? `${formatCount(extra.alreadyDone)} ${w.also?.done}` : undefined,
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
  for (const message of r.unmatched.slice(0, SHOWN_ROWS))
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

  // "Run the same command again" works as said only if that command may write its rejects file again.
  const again =
    w.rejectsNamed !== undefined && r.rejects === w.rejectsNamed
      ? `run the same command again with --force (or another --rejects: ${r.rejects} is there now)`
      : "run the same command again";
  const resume =
    r.unsent > 0
      ? `Run the same command again to send the ${count(r.unsent, w.noun)} not sent`
      : "Every row was sent before the stop";
  if (r.dryRun) {
    ctx.info(
      `[dry-run] would send ${count(r.wouldSend ?? 0, w.noun)} in ${count(r.chunks.total, ["request", "requests"])}; nothing was sent`,
    );
  } else if (stop === "error") {
    ctx.warn("Stopped before the end by the error below: fix its cause, then run the same command again.");
  } else if (stop === "now") {
    ctx.warn(
      `Stopped at once (second Ctrl-C), without waiting for the requests in flight: their rows are among the uncertain ones. ${resume}; what the service confirmed is not sent twice.`,
    );
  } else if (r.interrupted) {
    ctx.warn(`Interrupted: ${count(r.sent, w.noun)} recorded in the ledger; ${resume.toLowerCase()}.`);
  } else if (code === ExitCode.ok) {
    const confirmed = r.sent - r.failed - alsoAccepted;
    // Invalid rows skipped (--skip-invalid) are not done: never a ✓ that says there is nothing left.
    const fix = `${count(r.invalid, ["invalid row", "invalid rows"])} still to fix${r.rejects ? ` (in ${r.rejects})` : ""}`;
    const also = w.also && alsoAccepted > 0 ? `${w.also.verb} ${count(alsoAccepted, w.also.noun)}` : "";
    if (confirmed > 0)
      ctx.success(
        `${w.verb ?? "Sent"} ${count(confirmed, w.noun)}${w.target ? ` ${w.target}` : ""}${also ? `; ${also.charAt(0).toLowerCase()}${also.slice(1)}` : ""}`,
      );
    else if (also) ctx.success(also);
    else if (r.invalid > 0)
      ctx.warn(
        `Nothing sent${r.alreadyDone > 0 ? ": earlier runs already got every valid row confirmed" : ""}; ${fix}, then ${again}.`,
      );
    else if (r.alreadyDone > 0 && !r.held)
      ctx.success("Nothing to send: earlier runs already got every row confirmed");
    else ctx.success("Nothing was sent");
  } else {
    // Only what applies: a rerun resends refused rows, not uncertain ones.
    const next = [
      r.failed > 0
        ? `${again} to resend the ${count(r.failed, ["refused row", "refused rows"])} (confirmed ones are skipped)`
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

/** One run's result with a second run's over rows it held back: the held rows counted by what became of them. */
function combined(first: BulkResult, second: BulkResult): BulkResult {
  const sum = (key: "sent" | "failed" | "uncertain" | "unsent" | "alreadyDone") => first[key] + second[key];
  const lists = (key: "failures" | "uncertainRows") =>
    [...first[key], ...second[key]].sort((a, b) => a.line - b.line);
  return {
    ...first,
    sent: sum("sent"),
    failed: sum("failed"),
    uncertain: sum("uncertain"),
    unsent: sum("unsent"),
    alreadyDone: sum("alreadyDone"),
    held: Math.max(0, (first.held ?? 0) - second.rows),
    chunks: {
      total: first.chunks.total + second.chunks.total,
      succeeded: first.chunks.succeeded + second.chunks.succeeded,
      failed: first.chunks.failed + second.chunks.failed,
      uncertain: first.chunks.uncertain + second.chunks.uncertain,
    },
    failures: lists("failures"),
    uncertainRows: lists("uncertainRows"),
    unmatched: [...first.unmatched, ...second.unmatched],
    omitted: {
      ...first.omitted,
      failures: first.omitted.failures + second.omitted.failures,
      uncertainRows: first.omitted.uncertainRows + second.omitted.uncertainRows,
    },
    interrupted: first.interrupted || second.interrupted || undefined,
  };
}

/**
 * Whether the JSON summary goes to stdout: with -o json, and on exit 3 (partial) for scripts, but onto a
 * terminal only when asked (a person reads the summary on stderr; thousands of lines of JSON would bury it).
 */
export function jsonSummary(ctx: Context, partial: boolean): boolean {
  return ctx.out.isJson || (partial && ctx.io.stdout.isTTY !== true);
}
