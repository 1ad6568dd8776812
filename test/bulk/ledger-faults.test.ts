/**
 * A ledger write that fails part-way (a full or failing disk): the bytes it left stay on a line of their own,
 * so the records written after it read back. The fault is injected into node:fs's writeSync, the one call the
 * ledger writes its records with.
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { keyFingerprint, Ledger } from "../../src/bulk/engine/ledger.js";
import { DONE } from "../../src/bulk/engine/types.js";
import { tempDir } from "../helpers/cli.js";
import { confirmChunk, flagsOf, hashesOf } from "./helpers.js";

/** When set, the next writeSync writes half of what it was given, then fails. */
const fault = vi.hoisted(() => ({ armed: false }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const writeSync = ((
    fd: number,
    buffer: Buffer,
    offset?: number | null,
    length?: number,
    position?: number | null,
  ) => {
    const from = offset ?? 0;
    const bytes = length ?? buffer.length - from;
    if (!fault.armed) return actual.writeSync(fd, buffer, from, bytes, position);
    fault.armed = false;
    actual.writeSync(fd, buffer, from, Math.floor(bytes / 2), position);
    throw Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });
  }) as typeof actual.writeSync;
  return { ...actual, default: { ...actual, writeSync }, writeSync };
});

const tmp = tempDir("assess-ledger-faults-");
afterAll(() => tmp.cleanup());

describe("a ledger write that fails part-way", () => {
  it("leaves its bytes on a line of their own: the records after it read back", async () => {
    const dir = tmp.file("torn-write");
    const target = { baseUrl: "http://127.0.0.1:1/api", key: keyFingerprint("k"), testId: 1 };
    const ledger = await Ledger.open(dir, "invite", target);
    await confirmChunk(ledger, "r1-0", ["before@x"], [2, 2]);

    fault.armed = true;
    await expect(ledger.prepare("r1-1", hashesOf(["failed@x"]), [3, 3])).rejects.toThrow(/EIO/);
    expect(fault.armed).toBe(false);
    // The run goes on recording what it can (answers of requests already out, say).
    await confirmChunk(ledger, "r1-2", ["after@x"], [4, 4]);
    await ledger.close();

    const lines = readFileSync(ledger.path, "utf8").split("\n");
    expect(lines.filter((line) => line.includes('"c":"r1-1"'))).toHaveLength(1); // the half record, alone
    const reader = await Ledger.open(dir, "invite", target, { readOnly: true });
    expect(reader.skippedLines).toBe(1);
    expect(["before@x", "failed@x", "after@x"].map((key) => flagsOf(reader.keys, key))).toEqual([
      DONE,
      0,
      DONE,
    ]);
  });
});
