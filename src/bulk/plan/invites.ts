/**
 * A bulk invite, planned: what each row of the file would come to, before anything is sent.
 *
 *   invalid   the row fails the checks (line and reason)
 *   repeat    the same e-mail for the same test as an earlier row: sent once
 *   finished  the candidate finished the test within the look-back (the attempt listing names the attempt):
 *             inviting again does nothing useful (the service returns the finished invitation unchanged);
 *             `--reattempt-finished` gives a new attempt through the reattempt operation instead
 *   ledger    an earlier run from here got the invitation confirmed (or gave the candidate a new attempt at
 *             the test, whichever attempt finished since): not sent again
 *   uncertain an earlier run sent it and its answer never came: not sent again unless --retry-uncertain
 *   new       to be invited (also a pending, cancelled or expired invitation: the service revives those)
 *
 * Functions only (no commander, no output): the CLI's `invite bulk --plan`, its run (which holds finished rows
 * back) and any other caller use the same classes.
 */
import { type FinishedAttempt, type FinishedIndex, finishedKey, reattemptKey } from "../../core/finished.js";
import { Ledger, type LedgerTarget } from "../engine/ledger.js";
import { DONE, type EntryBatches, UNCERTAIN } from "../engine/types.js";
import { hashHalves, hashKey } from "../storage/keyset.js";

const INVITE_CLASSES = ["new", "ledger", "uncertain", "finished", "invalid", "repeat"] as const;

/** A ledger's flags for a key (DONE, UNCERTAIN), read only: a plan writes nothing. */
type LedgerFlags = (key: string) => number;

export async function readLedger(dir: string, kind: string, target: LedgerTarget): Promise<LedgerFlags> {
  const ledger = await Ledger.open(dir, kind, target, { readOnly: true });
  return (key) => {
    hashKey(key);
    return ledger.keys.get(hashHalves.hi, hashHalves.lo);
  };
}

export interface InvitePlanRow {
  line: number;
  email: string;
  /** The row's test (its group). */
  testId: number;
  class: (typeof INVITE_CLASSES)[number];
  /** invalid: why; repeat: which line it repeats. */
  reason?: string;
  /** finished: the attempt. */
  finished?: FinishedAttempt;
}

/**
 * Classes every row of `entries` (the rows a bulk invite would read), in file order. `invited` and
 * `reattempted` open a test's invite ledger and its reattempt ledger (keyed by `reattemptKey`).
 */
export async function planInvites(
  entries: EntryBatches<unknown>,
  lookups: {
    finished: FinishedIndex;
    invited(testId: number): Promise<LedgerFlags>;
    reattempted(testId: number): Promise<LedgerFlags>;
  },
): Promise<InvitePlanRow[]> {
  const rows: InvitePlanRow[] = [];
  const firstLine = new Map<string, number>();
  const ledgers = new Map<string, Promise<LedgerFlags>>();
  const flagsOf = (which: "invited" | "reattempted", testId: number) => {
    const key = `${which} ${testId}`;
    if (!ledgers.has(key)) ledgers.set(key, lookups[which](testId));
    return ledgers.get(key)!;
  };
  for await (const batch of entries) {
    for (const entry of batch) {
      if (entry.invalid) {
        const { line, label, error } = entry.invalid;
        rows.push({ line, email: label ?? "", testId: Number.NaN, class: "invalid", reason: error });
        continue;
      }
      const { line, label, key, group } = entry.row;
      const testId = Number(group);
      const add = (row: Pick<InvitePlanRow, "class" | "reason" | "finished">) =>
        rows.push({ line, email: label, testId, ...row });
      const seen = `${group}\n${key}`;
      const earlier = firstLine.get(seen);
      if (earlier !== undefined) {
        add({ class: "repeat", reason: `repeats line ${earlier}` });
        continue;
      }
      firstLine.set(seen, line);
      const finished = lookups.finished.get(finishedKey(testId, label));
      if (finished) {
        const done = (await flagsOf("reattempted", testId))(reattemptKey(finished.email));
        add(
          done & DONE
            ? { class: "ledger", reason: "reattempted from here", finished }
            : { class: "finished", finished },
        );
        continue;
      }
      const flags = (await flagsOf("invited", testId))(key);
      add({ class: flags & DONE ? "ledger" : flags & UNCERTAIN ? "uncertain" : "new" });
    }
  }
  return rows;
}

/** The plan as `--json` prints it: counts, then the rows of each class. */
export function planByClass(rows: InvitePlanRow[]): Record<string, unknown> {
  const byClass = Object.fromEntries(INVITE_CLASSES.map((c) => [c, [] as unknown[]]));
  for (const { class: name, testId, ...rest } of rows) {
    byClass[name]!.push(Number.isNaN(testId) ? rest : { ...rest, testId });
  }
  const counts = Object.fromEntries(INVITE_CLASSES.map((c) => [c, byClass[c]!.length]));
  return { rows: rows.length, counts, ...byClass };
}
