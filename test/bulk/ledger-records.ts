/**
 * Ledger records made as a run makes them, for tests that drive a ledger directly. No vitest here: the torn-write
 * property runs from bench/large-cases.mjs too.
 */
import type { Ledger } from "../../src/bulk/engine/ledger.js";
import { hashHalves, hashKey, type KeySet } from "../../src/bulk/storage/keyset.js";

/** The ledger's hashes of some keys, as the pairs a ledger record stores. */
export function hashesOf(keys: string[]): Uint32Array {
  const out = new Uint32Array(keys.length * 2);
  keys.forEach((key, i) => {
    hashKey(key);
    out[i * 2] = hashHalves.hi;
    out[i * 2 + 1] = hashHalves.lo;
  });
  return out;
}

/** The flags a key set holds for one key. */
export function flagsOf(set: KeySet, key: string): number {
  hashKey(key);
  return set.get(hashHalves.hi, hashHalves.lo);
}

/** Records a chunk in a ledger as a run does, from its keys to a confirming answer. */
export async function confirmChunk(
  ledger: Ledger,
  chunk: string,
  keys: string[],
  lines: [number, number],
): Promise<void> {
  await ledger.prepare(chunk, hashesOf(keys), lines);
  await ledger.begin(chunk);
  await ledger.end(chunk, { t: "ok" });
}
