import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapOrdered } from "../../src/core/map-ordered.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("mapOrdered", () => {
  it("keeps input order and never runs more than the limit at once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        async (delays, limit) => {
          let running = 0;
          let peak = 0;
          const out: number[] = [];
          for await (const value of mapOrdered(delays, limit, async (delay, i) => {
            running++;
            peak = Math.max(peak, running);
            await tick(delay);
            running--;
            return i;
          })) {
            out.push(value);
          }
          expect(out).toEqual(delays.map((_, i) => i));
          expect(peak).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("surfaces a failure at its position and starts nothing new after the consumer stops", async () => {
    const started: number[] = [];
    const seen: number[] = [];
    await expect(async () => {
      for await (const value of mapOrdered([0, 1, 2, 3, 4, 5, 6, 7], 2, async (item) => {
        started.push(item);
        await tick(1);
        if (item === 2) throw new Error("boom");
        return item;
      })) {
        seen.push(value);
      }
    }).rejects.toThrow("boom");
    expect(seen).toEqual([0, 1]);
    await tick(20);
    expect(started.length).toBeLessThan(8);
  });
});
