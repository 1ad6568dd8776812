/**
 * Rows with a dedupe key of their own (`employees upsert`: the lower-cased e-mail; the ledger key is the
 * content) are one item, sent once. Identical rows are repeats of the first; rows that differ conflict, and
 * every row of that key is invalid input naming another line of it, found before anything is sent.
 *
 * Built from the spools once the check is over (one reader in file order, however many halves were checked).
 * A KeySet of every key says which come more than once; only those get a second table (the key's hash and 32
 * bits of its first row's content hash), and only when some conflict, a third pass notes their lines. Two
 * contents sharing 32 bits of hash (2^-32 a pair) would be taken for a repeat.
 */
import { FIRST, REPEAT } from "../engine/types.js";
import { FLAGS, KeySet, MAX_LOAD, probe } from "./keyset.js";
import { type Scanned, scan } from "./spool.js";

/** Met already by the sending pass. */
const SEEN = 1;
/** Rows of the key differ. */
const CONFLICT = 2;
/** Marks a used slot: a slot's second word is never 0 (0 = free). */
const PRESENT = 4;
const WORDS = 3;

/** Where the checked rows are: the spools of the validate-first pass, in file order. */
interface SpooledPart {
  spool: { fd: number };
  lineOffset: number;
}

/** Flags in the KeySet of every key. */
const ONCE = 1;
const MORE = 2;

/**
 * Which rows of the input repeat or conflict, by their dedupe keys (built by `indexRows`): a table of the keys
 * that come more than once, so a key it does not hold is the first (and only) of its rows.
 */
class DedupeIndex {
  private readonly table: Uint32Array;
  private readonly capacity: number;
  private count = 0;
  /** Per slot of a conflicting key: the line of its first row, and of the first row that differs from it. */
  private lines?: Uint32Array;
  /** Keys whose rows differ. */
  conflicts = 0;

  /** `keys`: how many it will hold (it never grows). */
  constructor(keys: number) {
    this.capacity = Math.max(64, Math.ceil(keys / MAX_LOAD) + 1);
    this.table = new Uint32Array(this.capacity * WORDS);
  }

  /** A checked row, in file order: its key's hash and its content's (`fp`, 32 bits of it). */
  add(hi: number, lo: number, fp: number): void {
    const bare = (lo & ~FLAGS) >>> 0;
    const i = this.find(hi, bare);
    const t = this.table;
    if (i < 0) {
      if (this.count + 1 >= this.capacity) throw new Error("the table of repeated keys is full");
      const j = -i - 2;
      t[j] = hi;
      t[j + 1] = (bare | PRESENT) >>> 0;
      t[j + 2] = fp;
      this.count++;
      return;
    }
    if ((t[i + 1]! & CONFLICT) === 0 && t[i + 2] !== fp) {
      t[i + 1] = (t[i + 1]! | CONFLICT) >>> 0;
      this.conflicts++;
    }
  }

  /** The sending pass's verdict on a row: FIRST, REPEAT, or (a conflicting key's) another row's line. */
  take(hi: number, lo: number, fp: number): number {
    const i = this.find(hi, (lo & ~FLAGS) >>> 0);
    if (i < 0) return FIRST;
    const t = this.table;
    const flags = t[i + 1]!;
    if (flags & CONFLICT) return this.otherLine(i, fp);
    if (flags & SEEN) return REPEAT;
    t[i + 1] = (flags | SEEN) >>> 0;
    return FIRST;
  }

  /** A conflicting row's other line: the key's first row, or for a row like that one, the first that differs. */
  private otherLine(i: number, fp: number): number {
    const slot = (i / WORDS) * 2;
    return this.table[i + 2] === fp ? this.lines![slot + 1]! : this.lines![slot]!;
  }

  /**
   * Notes each conflicting key's two lines in another pass (only when some keys conflict); returns how many
   * rows conflict, and the first `most` invalid rows in file order, invalid from the start or conflicting
   * (`reason`: naming the other line).
   */
  locate(parts: SpooledPart[], most: number, reason: (otherLine: number) => string) {
    const lines = new Uint32Array(this.capacity * 2);
    this.lines = lines;
    let rows = 0;
    const shown: Array<{ line: number; error?: string; slot: number; fp: number }> = [];
    scanParts(parts, (r) => {
      if (r.error !== undefined) {
        if (shown.length < most) shown.push({ line: r.line, error: r.error, slot: -1, fp: 0 });
        return;
      }
      if (!r.dedupe) return;
      const i = this.find(r.dhi, (r.dlo & ~FLAGS) >>> 0);
      if (i < 0 || (this.table[i + 1]! & CONFLICT) === 0) return;
      rows++;
      const slot = (i / WORDS) * 2;
      if (lines[slot] === 0) lines[slot] = r.line;
      else if (lines[slot + 1] === 0 && this.table[i + 2] !== r.hi) lines[slot + 1] = r.line;
      if (shown.length < most) shown.push({ line: r.line, slot: i, fp: r.hi });
    });
    return {
      rows,
      shown: shown.map(({ line, error, slot, fp }) => ({
        line,
        error: error ?? reason(this.otherLine(slot, fp)),
      })),
    };
  }

  private find(hi: number, bare: number): number {
    return probe(this.table, this.capacity, WORDS, hi, bare);
  }
}

/** The index of the rows in the spools (`rows`: how many have a dedupe key; none: an empty index, unread). */
export function indexRows(parts: SpooledPart[], rows: number): DedupeIndex {
  if (rows === 0) return new DedupeIndex(0);
  const keys = new KeySet(rows);
  let more = 0;
  scanParts(parts, (r) => {
    if (!r.dedupe || (keys.update(r.dhi, r.dlo, ONCE) & ONCE) === 0) return;
    if ((keys.update(r.dhi, r.dlo, MORE) & MORE) === 0) more++;
  });
  const index = new DedupeIndex(more);
  // A second pass for the keys that come more than once (none: every row is the first of its key).
  if (more > 0) {
    scanParts(parts, (r) => {
      if (r.dedupe && keys.get(r.dhi, r.dlo) & MORE) index.add(r.dhi, r.dlo, r.hi);
    });
  }
  return index;
}

function scanParts(parts: SpooledPart[], visit: (record: Scanned) => void): void {
  for (const part of parts) scan(part.spool.fd, part.lineOffset, visit);
}
