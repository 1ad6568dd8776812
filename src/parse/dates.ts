import { UsageError } from "../errors.js";

/** Which end of a range a date bounds: a bare day means its first second as a start, its last as an end. */
export type Bound = "start" | "end";

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Dates outside these years are typing mistakes (`+99999999d`, year 0000), not dates to send. */
const EARLIEST = Date.UTC(1900, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

/** Dates: `YYYY-MM-DD`, full ISO 8601 (offsets allowed), `now`, `7d`/`24h`/`30m` ago, `+7d` from now. */
export function parseDate(input: string, bound: Bound, option: string, now: Date = new Date()): Date {
  const date = readDate(input.trim(), bound, now);
  if (date === undefined) {
    throw new UsageError(
      `${option}: "${input}" is not a date`,
      "Use YYYY-MM-DD, an ISO time like 2026-11-21T09:00:00Z, now, 7d (7 days ago) or +7d (7 days from now)",
    );
  }
  if (!(date.getTime() >= EARLIEST && date.getTime() <= LATEST)) {
    throw new UsageError(`${option}: "${input}" is outside the years 1900 to 9999`);
  }
  return date;
}

function readDate(value: string, bound: Bound, now: Date): Date | undefined {
  if (value === "now") return wholeSecond(now.getTime());
  const relative = /^([+-]?)(\d+)([smhdw])$/.exec(value);
  if (relative) {
    const [, sign, amount, unit] = relative as unknown as [string, string, string, string];
    const offset = Number(amount) * (UNIT_MS[unit] ?? 0);
    return wholeSecond(sign === "+" ? now.getTime() + offset : now.getTime() - offset);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value))
    return realDay(value) ? new Date(`${value}T${bound === "start" ? "00:00:00" : "23:59:59"}Z`) : undefined;
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(value))
    return undefined;
  // Without an offset the time is UTC, as everything this tool sends.
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
  const date = new Date(withZone.replace(" ", "T"));
  return realDay(value.slice(0, 10)) && !Number.isNaN(date.getTime())
    ? wholeSecond(date.getTime())
    : undefined;
}

/** Whether a day exists: Date rolls 2021-02-30 over to March 2. */
function realDay(day: string): boolean {
  const probe = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(probe.getTime()) && probe.toISOString().startsWith(day);
}

function wholeSecond(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** A length of time in milliseconds: `30s`, `5m`, `1h`, `2d`, `1w`, or parts of them together (`1h30m`). */
export function parseDuration(input: string, option: string): number {
  const text = input.trim().toLowerCase();
  if (/^(\d+[smhdw])+$/.test(text)) {
    let ms = 0;
    for (const [, amount, unit] of text.matchAll(/(\d+)([smhdw])/g))
      ms += Number(amount) * (UNIT_MS[unit!] ?? 0);
    if (Number.isSafeInteger(ms)) return ms;
  }
  throw new UsageError(
    `${option}: "${input}" is not a duration`,
    "Use a number with a unit: 30s, 5m, 1h, 2d (or parts together, such as 1h30m)",
  );
}

/** `2m`, `1h30m`, `45s` (whole seconds). */
export function formatDuration(ms: number): string {
  let seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds === 0) return "0s";
  const parts: string[] = [];
  for (const unit of ["d", "h", "m", "s"]) {
    const size = (UNIT_MS[unit] ?? 1000) / 1000;
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  return parts.join("");
}

/** The only format sent to the service: UTC `YYYY-MM-DDTHH:mm:ssZ`. */
export function toServiceTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `names`: what the caller calls the bounds (the CLI's flags; the SDK's and MCP tools' `from` and `to`). */
export function orderedRange(
  start: Date,
  end: Date,
  names: { from: string; to: string } = { from: "--from", to: "--to" },
): { start: Date; end: Date } {
  if (end.getTime() < start.getTime()) {
    throw new UsageError(
      `${names.to} (${toServiceTime(end)}) is before ${names.from} (${toServiceTime(start)})`,
    );
  }
  return { start, end };
}

/** A minute of slack, so that `--end now` typed a moment ago is not "in the past". */
const PAST_SLACK_MS = 60_000;

/** An end already passed is refused: the service would silently make an invitation expired at once. */
export function refusePastEnd(end: Date | undefined): void {
  if (end === undefined || end.getTime() >= Date.now() - PAST_SLACK_MS) return;
  throw new UsageError(
    `--end (${toServiceTime(end)}) is in the past: it would be expired from the start`,
    "Nothing was sent. Give a later end, such as +7d (7 days from now) or a future date.",
  );
}
