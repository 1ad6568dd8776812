import { MAX_ATTEMPT_SPAN_DAYS } from "../spec/limits.js";
/**
 * Splitting a period into windows of at most 30 days: the attempt listing takes no longer span per call.
 *
 * A period's bounds are inclusive seconds (`--to 2026-04-06` means up to 23:59:59). Internally each window is
 * half-open, [start, end), so consecutive windows share a boundary and nothing is counted twice; the service's
 * bounds are inclusive datetimes to the second, so a window is sent as start … end − 1 s.
 */

export const MAX_WINDOW_MS = MAX_ATTEMPT_SPAN_DAYS * 86_400_000;
const SECOND_MS = 1000;

/** A half-open span [start, end) of whole seconds. */
export interface Window {
  start: Date;
  end: Date;
}

/**
 * Consecutive half-open windows of at most `maxMs` covering [start, endInclusive] exactly: the first starts
 * at `start`, each next one where the previous ended, and the last ends one second after `endInclusive`.
 */
export function splitWindows(start: Date, endInclusive: Date, maxMs = MAX_WINDOW_MS): Window[] {
  const from = start.getTime();
  const until = endInclusive.getTime() + SECOND_MS;
  if (!(until > from)) throw new RangeError("the end of a period must not be before its start");
  if (maxMs < SECOND_MS) throw new RangeError("a window must span at least one second");
  const windows: Window[] = [];
  for (let at = from; at < until; at += maxMs) {
    windows.push({ start: new Date(at), end: new Date(Math.min(at + maxMs, until)) });
  }
  return windows;
}

/** The inclusive bounds the service wants for a window: its start, and the last second before its end. */
export function inclusiveBounds(window: Window): { start: Date; end: Date } {
  return { start: window.start, end: new Date(window.end.getTime() - SECOND_MS) };
}
