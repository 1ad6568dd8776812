/** The numbers and marks of `reports stats`: statistics, histogram, days, bars and sparklines; no I/O. */
import { largest } from "../arrays.js";

export function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : sum(values) / values.length;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * The p-th percentile (0 ≤ p ≤ 100) of values sorted ascending, by linear interpolation between the two
 * nearest ranks, as numpy.percentile's default (Hyndman & Fan type 7). Undefined for none.
 */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be from 0 to 100, got ${p}`);
  const h = ((sorted.length - 1) * p) / 100;
  const lower = Math.floor(h);
  const below = sorted[lower]!;
  const above = sorted[Math.min(lower + 1, sorted.length - 1)]!;
  return below + (h - lower) * (above - below);
}

export function summarize(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: mean(sorted),
    median: percentile(sorted, 50),
    p10: percentile(sorted, 10),
    p90: percentile(sorted, 90),
    min: sorted[0],
    max: sorted.at(-1),
  };
}

/**
 * Scores in buckets `width` points wide, `from` included, `to` excluded but in the last (which holds 100); a
 * score below 0 (negative marking) counts in the first.
 */
export function histogram(scores: readonly number[], width = 10) {
  const count = Math.ceil(100 / width);
  const buckets = Array.from({ length: count }, (_, i) => ({
    from: i * width,
    to: Math.min(100, (i + 1) * width),
    count: 0,
  }));
  for (const score of scores) buckets[Math.min(count - 1, Math.max(0, Math.floor(score / width)))]!.count++;
  return buckets;
}

const DAY_MS = 86_400_000;

export function utcDay(time: Date): string {
  return time.toISOString().slice(0, 10);
}

/**
 * Counts per UTC day, every day from `first` to `last` (both included) present. Days outside that span are not
 * counted: a report dated .NET's minimum (0001-01-01) would otherwise stretch the series to 739,000 days.
 */
export function perDay(days: readonly string[], first: string, last: string) {
  const counts = new Map<string, number>();
  for (const day of days) counts.set(day, (counts.get(day) ?? 0) + 1);
  const series: Array<{ date: string; count: number }> = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += DAY_MS) {
    const date = utcDay(new Date(t));
    series.push({ date, count: counts.get(date) ?? 0 });
  }
  return series;
}

const SPARKS = "▁▂▃▄▅▆▇█";

/** One mark per value, scaled to the largest: 0 is always ▁, any other value at least ▂, the largest █. */
export function sparkline(values: readonly number[]): string {
  const max = largest(values);
  return values
    .map((value) =>
      value <= 0 || max === 0 ? SPARKS[0] : SPARKS[1 + Math.round(((SPARKS.length - 2) * value) / max)],
    )
    .join("");
}

/** Sums of consecutive runs of `size` values (the last run may be shorter). */
export function groupSums(values: readonly number[], size: number): number[] {
  const sums: number[] = [];
  for (let i = 0; i < values.length; i += size) sums.push(sum(values.slice(i, i + size)));
  return sums;
}

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/** A bar of `value` out of `max`, `width` cells at most, in eighths of a cell; above 0 is at least an eighth. */
export function bar(value: number, max: number, width: number): string {
  if (value <= 0 || max <= 0) return "";
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return "█".repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}
