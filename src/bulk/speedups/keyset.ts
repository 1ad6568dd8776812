/**
 * A compact set of 61-bit key hashes with three flags each, for the million-row runs: 8 bytes a key in two
 * Uint32Array words instead of a JS string in a Set (≈ 80 bytes). The chance that two of a million different
 * keys collide is about 1e-7, and a collision could only make a row look already sent. Against a Map of the
 * same keys as strings, 1M invites: peak RSS 125.6 MiB / 238.2 MiB, 38.2 s / 54.4 s on a busy machine
 * (bench/README.md, "The speed-ups, one by one").
 */
import type { KeyFlags } from "../engine/types.js";

/** The three flags a key can have (DONE, UNCERTAIN, SEEN: engine/types.ts). */
const FLAGS = 7;

/** The two 32-bit halves of the last `hashKey` call: one scratch pair, not a pair allocated per row. */
export const hashHalves = { hi: 0, lo: 0 };

/**
 * 64-bit hash of a string as two 32-bit halves: two multiply–xorshift lanes over the UTF-16 code units (the
 * xorshift carries high bits back down after each multiply, so keys that differ in one digit spread over all
 * bits), then a murmur-style finalizer that mixes the lanes. Not cryptographic: the ledger stores these
 * instead of e-mails, and they only need to tell keys apart (no collision among 2 million test keys).
 */
export function hashKey(text: string): void {
  let h1 = 0x9747b28c ^ text.length;
  let h2 = 0x85ebca6b;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x5bd1e995);
    h1 ^= h1 >>> 15;
    h2 = Math.imul(h2 ^ c, 0x27d4eb2d);
    h2 ^= h2 >>> 13;
  }
  h1 ^= Math.imul(h2 ^ (h2 >>> 16), 0x85ebca6b);
  h1 = Math.imul(h1 ^ (h1 >>> 13), 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  h2 ^= Math.imul(h1 ^ (h1 >>> 15), 0x2c1b3c6d);
  h2 = Math.imul(h2 ^ (h2 >>> 12), 0x297a2d39);
  h2 ^= h2 >>> 15;
  hashHalves.hi = h1 >>> 0;
  hashHalves.lo = h2 >>> 0;
}

const MAX_LOAD = 0.7;

/** Open addressing with linear probing; slot = [hi, lo with its low 3 bits replaced by flags]; lo 0 = empty. */
export class KeySet implements KeyFlags {
  private table: Uint32Array;
  private capacity: number;
  private count = 0;

  constructor(expected = 1024) {
    this.capacity = Math.max(64, Math.ceil(expected / MAX_LOAD));
    this.table = new Uint32Array(this.capacity * 2);
  }

  get size(): number {
    return this.count;
  }

  /** Flags of a key (0 when absent). */
  get(hi: number, lo: number): number {
    const i = this.find(hi, (lo & ~FLAGS) >>> 0);
    return i < 0 ? 0 : this.table[i + 1]! & FLAGS;
  }

  /** Sets `add` and clears `clear` flags of a key (adding it when absent); returns the flags it had. */
  update(hi: number, lo: number, add: number, clear = 0): number {
    const bare = (lo & ~FLAGS) >>> 0;
    let i = this.find(hi, bare);
    if (i >= 0) {
      const old = this.table[i + 1]! & FLAGS;
      this.table[i + 1] = (bare | ((old | add) & ~clear)) >>> 0;
      return old;
    }
    if ((add & ~clear) === 0) return 0;
    if (this.count + 1 > this.capacity * MAX_LOAD) {
      this.grow();
      i = this.find(hi, bare);
    }
    i = -i - 2;
    this.table[i] = hi;
    this.table[i + 1] = (bare | (add & ~clear)) >>> 0;
    this.count++;
    return 0;
  }

  /** Index of the key's slot, or -(free slot index) - 2 when absent. */
  private find(hi: number, bare: number): number {
    const table = this.table;
    const cap = this.capacity;
    // Multiply-shift picks a slot for any capacity (not only powers of two), so growth can be 1.5×.
    let slot = Math.floor(((hi ^ bare) >>> 0) * (cap / 4294967296));
    for (;;) {
      const i = slot * 2;
      const lo = table[i + 1]!;
      if (lo === 0) return -i - 2;
      if (table[i] === hi && (lo & ~FLAGS) >>> 0 === bare) return i;
      slot = slot + 1 === cap ? 0 : slot + 1;
    }
  }

  private grow(): void {
    const old = this.table;
    this.capacity = Math.ceil(this.capacity * 1.5);
    this.table = new Uint32Array(this.capacity * 2);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const lo = old[i + 1]!;
      if (lo !== 0) {
        const j = -this.find(old[i]!, (lo & ~FLAGS) >>> 0) - 2;
        this.table[j] = old[i]!;
        this.table[j + 1] = lo;
        this.count++;
      }
    }
  }
}
