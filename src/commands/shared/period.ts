/**
 * The period of `attempts list` and `watch`, `callbacks resend --from --to` and `reconcile`, `reports export` and
 * `stats` from --from and --to (core/periods.ts lists its attempts): more than MAX_WINDOWS_UNASKED windows need
 * a confirmation.
 */
import type { Context } from "../../context.js";
import { MAX_WINDOWS_UNASKED, type Period, windowCount } from "../../core/periods.js";
import { UsageError } from "../../errors.js";
import { formatCount } from "../../output/progress.js";
import { orderedRange, parseDate, toServiceTime } from "../../parse/dates.js";
import { flag } from "./flags.js";
import { requireValues } from "./options.js";

/** `--from` and `--to` of a period, each with its help; `periodYes` (last in help) confirms a long one. */
export const periodFlags = (from: string, to: string) => ({
  from: flag.date("start", from),
  to: flag.date("end", to),
});

/** `--yes` of every verb that lists the attempts of a period. */
export const periodYes = () =>
  flag
    .bool(
      `make the calls of a period longer than ${MAX_WINDOWS_UNASKED} × 30 days (~2 years) without asking (required then when prompts are off)`,
    )
    .short("-y");

/** `--from` and `--to`, asked for when missing and prompts are allowed (an answer is read as the flag is). */
export async function periodFromOptions(
  ctx: Context,
  options: { from?: Date; to?: Date; yes?: boolean },
): Promise<Period> {
  const [from, to] = await requireValues(ctx, [
    { flag: "--from", value: options.from, question: "From (YYYY-MM-DD, ISO time, or 30d for 30 days ago):" },
    { flag: "--to", value: options.to, question: "To (YYYY-MM-DD, ISO time, or now):" },
  ]);
  const period = orderedRange(
    options.from ?? parseDate(from!, "start", "--from"),
    options.to ?? parseDate(to!, "end", "--to"),
  );
  await confirmCalls(ctx, period, options.yes === true);
  return period;
}

/**
 * Above MAX_WINDOWS_UNASKED calls (`--from 1970-01-01` is a typing mistake more often than not) a person is
 * asked, or without prompts `--yes` is required. Dry runs ask too: the listing's reads are sent even then.
 */
export async function confirmCalls(ctx: Context, period: Period, yes: boolean): Promise<void> {
  const calls = windowCount(period);
  if (calls <= MAX_WINDOWS_UNASKED || yes) return;
  const span = `${toServiceTime(period.start)} … ${toServiceTime(period.end)}`;
  const what = `Listing the attempts of ${span} takes ${formatCount(calls)} calls to the service (one per 30 days)`;
  if (!ctx.canPrompt) {
    throw new UsageError(
      `${what}; more than ${MAX_WINDOWS_UNASKED} need confirmation`,
      `Pass --yes to make the ${formatCount(calls)} calls, or give a shorter period with --from and --to.`,
    );
  }
  const { confirmAction } = await import("../../prompts/confirm.js");
  await confirmAction(ctx, `${what}. Make them?`, "Nothing was read: you answered no");
}
