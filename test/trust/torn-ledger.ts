/**
 * Torn ledger writes: a ledger cut at every byte (and padded with the zeros a crashed file system may leave) is
 * read back as exactly what its complete records say, and a run resumes on it cleanly. Run by
 * test/trust/crash.test.ts on a short ledger and by `npm run bench:large -- --only torn` on the full one. No
 * vitest here, so the bench can bundle it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { type ChunkOutcome, keyFingerprint, Ledger } from "../../src/bulk/engine/ledger.js";
import { DONE, UNCERTAIN } from "../../src/bulk/engine/types.js";
import type { KeySet } from "../../src/bulk/storage/keyset.js";
import { confirmChunk, flagsOf, hashesOf } from "../bulk/ledger-records.js";

/**
 * Each chunk's fate, in the order written; `undefined`: the process died while its request was out. The
 * short ledger keeps one chunk of each kind of record (some rows refused, all refused, no answer, none).
 */
export const FULL: Array<ChunkOutcome | undefined> = [
  { t: "ok" },
  { t: "ok", failed: [1] },
  { t: "fail", error: "HTTP 400" },
  { t: "uncertain", error: "reset" },
  { t: "ok" },
  undefined,
];
export const SHORT: Array<ChunkOutcome | undefined> = [
  { t: "ok", failed: [1] },
  { t: "fail", error: "HTTP 400" },
  { t: "uncertain", error: "reset" },
  undefined,
];

interface Line {
  end: number;
  record: { t: string; c: string; failed?: number[] };
}

const target = { baseUrl: "http://127.0.0.1:1/api", key: keyFingerprint("sbx-torn"), testId: 1001 };

/**
 * Writes a ledger of `chunks` (`keys` rows each) in `dir`, then reads it back cut at every byte, with and
 * without 7 zero bytes after the cut; every 97 cuts (and right inside the last line) a run resumes on the torn
 * file and its records read back too. `equal` is the caller's assertion. Returns the ledger's size and the cuts
 * read back.
 */
export async function tornLedger(
  dir: string,
  { chunks, keys }: { chunks: Array<ChunkOutcome | undefined>; keys: number },
  equal: (actual: number, expected: number, what: string) => void,
): Promise<{ bytes: number; checked: number }> {
  const keysOf = (c: number) => Array.from({ length: keys }, (_, i) => `k${c}-${i}@example.com`);
  const stateOf = (set: KeySet, key: string) => flagsOf(set, key) & (DONE | UNCERTAIN);

  /**
   * What the complete records of a prefix say about each key. A record counts when its JSON is whole, with or
   * without its newline, and whatever zeros follow it (space the ledger reserved, or a write cut short).
   */
  function expected(records: Line[], cut: number) {
    const complete = records.filter((r) => r.end <= cut).map((r) => r.record);
    const flags = new Map<string, number>();
    chunks.forEach((_, c) => {
      const id = `r1-${c}`;
      const sent = complete.some((r) => r.t === "send" && r.c === id);
      const outcome = complete.find((r) => r.t !== "keys" && r.t !== "send" && r.c === id);
      keysOf(c).forEach((key, i) => {
        let f = 0;
        // A send line that is not complete: the request never went out (it waits for the line to be on disk).
        if (sent && !outcome) f = UNCERTAIN;
        else if (sent && outcome?.t === "uncertain") f = UNCERTAIN;
        else if (sent && outcome?.t === "ok" && !(outcome.failed ?? []).includes(i)) f = DONE;
        flags.set(key, f);
      });
    });
    return flags;
  }

  const writer = await Ledger.open(dir, "invite", target);
  for (const [c, outcome] of chunks.entries()) {
    await writer.prepare(`r1-${c}`, hashesOf(keysOf(c)), [c * keys + 2, c * keys + keys + 1]);
    await writer.begin(`r1-${c}`);
    if (outcome) await writer.end(`r1-${c}`, outcome);
  }
  await writer.close();
  const full = readFileSync(writer.path);
  const records: Line[] = [];
  for (let start = 0, nl = full.indexOf(10); nl !== -1; start = nl + 1, nl = full.indexOf(10, start)) {
    records.push({ end: nl, record: JSON.parse(full.subarray(start, nl).toString("utf8")) });
  }

  let checked = 0;
  for (let cut = 0; cut <= full.length; cut++) {
    for (const padding of [0, 7]) {
      const bytes = Buffer.concat([full.subarray(0, cut), Buffer.alloc(padding)]);
      writeFileSync(writer.path, bytes);
      const reader = await Ledger.open(dir, "invite", target, { readOnly: true });
      const want = expected(records, cut);
      for (const [key, flags] of want)
        equal(stateOf(reader.keys, key), flags, `cut ${cut}+${padding}: ${key}`);
      checked++;
      if (cut % 97 === 0 || cut === full.length - 5) {
        const resumed = await Ledger.open(dir, "invite", target);
        await confirmChunk(resumed, "r2-0", ["new@example.com"], [99, 99]);
        await resumed.close();
        const again = await Ledger.open(dir, "invite", target, { readOnly: true });
        equal(
          stateOf(again.keys, "new@example.com"),
          DONE,
          `cut ${cut}+${padding}, resumed: new@example.com`,
        );
        for (const [key, flags] of want)
          equal(stateOf(again.keys, key), flags, `cut ${cut}+${padding}, resumed: ${key}`);
      }
    }
  }
  equal(checked, 2 * (full.length + 1), "cuts read back");
  return { bytes: full.length, checked };
}
