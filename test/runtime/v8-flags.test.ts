/**
 * The process's V8 flags (src/runtime/v8-flags.ts): bulk runs alone grow the heap by half at most, set at
 * launch (it cost other commands' start-up ~9 ms); --liftoff-only waits for the first connection.
 */
import { describe, expect, it } from "vitest";
import { launchFlagsFor } from "../../src/runtime/v8-flags.js";

const HEAP = "--heap-growing-percent=50";

describe("V8 flags by command line", () => {
  it("bulk commands, after any global options, get the heap flag", () => {
    for (const argv of [
      ["invite", "bulk", "people.csv", "--test", "1001"],
      ["--profile", "work", "employees", "upsert", "staff.xlsx"],
      ["--sandbox", "callbacks", "resend", "--file", "ids.txt"],
    ]) {
      expect(launchFlagsFor(argv)).toBe(HEAP);
    }
  });

  it("every other command gets none at launch", () => {
    for (const argv of [
      ["tests", "list"],
      ["invite", "send", "--test", "1001", "--email", "a@example.com"],
      ["bulk", "invite"],
      ["employees", "list"],
      ["attempts", "watch", "--once"],
      [],
    ]) {
      expect(launchFlagsFor(argv)).toBeUndefined();
    }
  });
});
