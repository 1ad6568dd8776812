/**
 * A compact set of 61-bit key hashes with three flags each: 8 bytes a key in two Uint32Array words instead of
 * a JS string in a Set (≈ 80 bytes). Two of a million different keys collide with a chance of about 1e-7, and
 * a collision could only make a row look already sent.
 */

/** The three flags a key can have (DONE, UNCERTAIN, SEEN: engine/types.ts), in the low bits of its `lo`. */
export const FLAGS = 7;
/** How full a table may get before probes grow long. */
export const MAX_LOAD = 0.7;

/** The two 32-bit halves of the last `hashKey` call (one scratch pair, not one allocated per row). */
export const hashHalves = { hi: 0, lo: 0 };

/**
 * 64-bit hash of a string: two multiply–xorshift lanes over its UTF-16 units, then a murmur-style finalizer
 * mixing them. Not cryptographic: the ledger stores these instead of e-mails, only to tell keys apart.
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

/**
 * Linear probing in a table of `words`-word slots [hi, lo with flags in its low 3 bits, …] (lo 0: free): the
 * index of the key's slot, or -(free slot's index) - 2. Multiply-shift picks a slot for any capacity.
 */
export function probe(table: Uint32Array, capacity: number, words: number, hi: number, bare: number): number {
  let slot = Math.floor(((hi ^ bare) >>> 0) * (capacity / 4294967296));
  for (;;) {
    const i = slot * words;
    const lo = table[i + 1]!;
    if (lo === 0) return -i - 2;
    if (table[i] === hi && (lo & ~FLAGS) >>> 0 === bare) return i;
    slot = slot + 1 === capacity ? 0 : slot + 1;
  }
}

/**
 * The keys of a group and their flags: the ledger's state plus this run's SEEN. Open addressing (`probe`),
 * growing 1.5× past MAX_LOAD.
 */
export class KeySet {
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

  private find(hi: number, bare: number): number {
    return probe(this.table, this.capacity, 2, hi, bare);
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
