import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inclusiveBounds, MAX_WINDOW_MS, splitWindows } from "../../src/core/periods.js";

const SECOND = 1000;
const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

/** Whole seconds from 2023 to 2029: several February ends, the 2024 and 2028 leap days, every month end. */
const instant = fc
  .integer({
    min: Date.parse("2023-01-01T00:00:00Z") / SECOND,
    max: Date.parse("2029-12-31T23:59:59Z") / SECOND,
  })
  .map((s) => new Date(s * SECOND));
/** Ranges from one second to ~2 years; biased towards spans near multiples of 30 days, where off-by-ones live. */
const span = fc.oneof(
  fc.integer({ min: 0, max: 730 * 86_400 }),
  fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: -2, max: 2 }))
    .map(([n, d]) => Math.max(0, n * 30 * 86_400 + d - 1)),
);
/** Month ends and leap days as starts, so those boundaries are covered on purpose, not by luck. */
const boundaryStart = fc
  .constantFrom(
    "2024-02-28T23:59:59Z",
    "2024-02-29T00:00:00Z",
    "2024-02-29T23:59:59Z",
    "2025-02-28T00:00:00Z",
    "2028-02-29T12:00:00Z",
    "2026-01-31T23:59:59Z",
    "2026-12-31T23:59:59Z",
    "2026-04-30T00:00:00Z",
  )
  .map(at);

describe("splitWindows", () => {
  it("covers [start, end] exactly with consecutive, non-overlapping windows of at most 30 days", () => {
    fc.assert(
      fc.property(fc.oneof(instant, boundaryStart), span, (start, seconds) => {
        const end = new Date(start.getTime() + seconds * SECOND);
        const windows = splitWindows(start, end);
        expect(windows[0]!.start.getTime()).toBe(start.getTime());
        expect(windows.at(-1)!.end.getTime()).toBe(end.getTime() + SECOND);
        for (const [i, w] of windows.entries()) {
          const length = w.end.getTime() - w.start.getTime();
          expect(length).toBeGreaterThan(0);
          expect(length).toBeLessThanOrEqual(MAX_WINDOW_MS);
          if (i > 0) expect(w.start.getTime()).toBe(windows[i - 1]!.end.getTime());
          // What is sent: inclusive bounds within the service's 30-day limit, never overlapping the next window.
          const sent = inclusiveBounds(w);
          expect(sent.end.getTime() - sent.start.getTime()).toBeLessThan(MAX_WINDOW_MS);
          if (i + 1 < windows.length)
            expect(sent.end.getTime()).toBeLessThan(windows[i + 1]!.start.getTime());
        }
        // As few calls as the limit allows.
        expect(windows.length).toBe(Math.ceil((seconds * SECOND + SECOND) / MAX_WINDOW_MS));
      }),
      { numRuns: 2000 },
    );
  });

  it("every second of the range falls in exactly one window", () => {
    fc.assert(
      fc.property(
        fc.oneof(instant, boundaryStart),
        span,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (start, seconds, where) => {
          const end = new Date(start.getTime() + seconds * SECOND);
          const probe = start.getTime() + Math.round(seconds * where) * SECOND;
          const windows = splitWindows(start, end);
          const holding = windows.filter((w) => {
            const sent = inclusiveBounds(w);
            return sent.start.getTime() <= probe && probe <= sent.end.getTime();
          });
          expect(holding).toHaveLength(1);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("splits 95 days (2026-01-01 … 2026-04-05) into 30 + 30 + 30 + 5 days", () => {
    const windows = splitWindows(at("2026-01-01T00:00:00Z"), at("2026-04-05T23:59:59Z"));
    expect(
      windows.map((w) => inclusiveBounds(w)).map((b) => [b.start.toISOString(), b.end.toISOString()]),
    ).toEqual([
      ["2026-01-01T00:00:00.000Z", "2026-01-30T23:59:59.000Z"],
      ["2026-01-31T00:00:00.000Z", "2026-03-01T23:59:59.000Z"],
      ["2026-03-02T00:00:00.000Z", "2026-03-31T23:59:59.000Z"],
      ["2026-04-01T00:00:00.000Z", "2026-04-05T23:59:59.000Z"],
    ]);
  });

  it("crosses a leap day without losing or doubling it", () => {
    const windows = splitWindows(at("2024-02-01T00:00:00Z"), at("2024-03-31T23:59:59Z"));
    expect(windows).toHaveLength(2);
    expect(inclusiveBounds(windows[0]!).end.toISOString()).toBe("2024-03-01T23:59:59.000Z");
    expect(windows[1]!.start.toISOString()).toBe("2024-03-02T00:00:00.000Z");
    expect(windows.reduce((n, w) => n + (w.end.getTime() - w.start.getTime()), 0)).toBe(60 * DAY);
  });

  it("30 days and one second are two windows of half each, not one of 30 days and one of a second", () => {
    const windows = splitWindows(at("2026-05-01T00:00:00Z"), at("2026-05-31T00:00:00Z"));
    expect(
      windows.map((w) => inclusiveBounds(w)).map((b) => [b.start.toISOString(), b.end.toISOString()]),
    ).toEqual([
      ["2026-05-01T00:00:00.000Z", "2026-05-15T23:59:59.000Z"],
      ["2026-05-16T00:00:00.000Z", "2026-05-31T00:00:00.000Z"],
    ]);
  });

  it("a single second is one window; an end before the start is refused", () => {
    expect(splitWindows(at("2026-05-05T10:00:00Z"), at("2026-05-05T10:00:00Z"))).toHaveLength(1);
    expect(() => splitWindows(at("2026-05-05T10:00:01Z"), at("2026-05-05T10:00:00Z"))).toThrow(RangeError);
  });
});
