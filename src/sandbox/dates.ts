/** Date parsing and formatting in the exact shapes the API uses. */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const STRICT_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;
const LOOSE_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z?$/;
const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export const DATE_FORMAT_HINT = "YYYY-MM-DDTHH:mm:ssZ";

function fromParts(m: RegExpExecArray): Date | undefined {
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // Date.UTC rolls 2024-02-31 over into March: reject such impossible calendar dates.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
    return undefined;
  return date;
}

/** `YYYY-MM-DDTHH:mm:ssZ` exactly, the format the service prescribes for invitation and link dates. */
export function parseStrictUtc(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  const m = STRICT_UTC.exec(value);
  return m ? fromParts(m) : undefined;
}

/** The attempt listing states `yyyy-MM-ddTHH:mm:ss` while other fields use a trailing Z: accept both, and fractions. */
export function parseLooseUtc(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  const m = LOOSE_UTC.exec(value);
  if (!m) return undefined;
  const date = fromParts(m);
  if (date && m[7]) date.setUTCMilliseconds(Math.floor(Number(`0${m[7]}`) * 1000));
  return date;
}

/** A generic ISO 8601 date or date-time (employee hire/exit dates, certificate dates). */
export function parseIsoDateTime(value: unknown): Date | undefined {
  if (typeof value !== "string" || !ISO_DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `2020-10-09T13:21:53`: the notification's AttemptedOnUtc carries no zone. */
export function isoNoZone(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/** `09-Oct-2020 06:51 PM`, the notification's AttemptedOn (rendered in UTC). */
export function attemptedOnLabel(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const h24 = date.getUTCHours();
  const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
  return `${pad(date.getUTCDate())}-${MONTHS[date.getUTCMonth()]}-${date.getUTCFullYear()} ${pad(h12)}:${pad(
    date.getUTCMinutes(),
  )} ${h24 < 12 ? "AM" : "PM"}`;
}

export const DAY_MS = 86_400_000;
