import { largest } from "../arrays.js";

/**
 * Fitting a table to the terminal, as gh does: a link, an e-mail or a date is never cut, so other columns
 * narrow first (widest first), then leave (empty ones first, then from the right, never the first); links
 * (and dates) that cannot fit leave the table for lines of their own below it.
 */

/** Only links, e-mail addresses or ISO dates (one, or a list joined by ", " as cellText joins them). */
const WHOLE =
  /^(?:(?:https?:\/\/\S+|[^\s@,]+@[^\s@,]+\.[^\s@,]+|\d{4}-\d\d-\d\d(?:T[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?)(?:, |$))+$/;

/** Narrower than this (or than its header) a cut column says nothing. */
const MIN_WIDTH = 8;

export function isWhole(text: string): boolean {
  return text.length > 0 && WHOLE.test(text);
}

/**
 * Which columns of `headers` and `cells` (texts as shown) a table of `total` columns shows, at what widths,
 * and which columns of links go `below` it. Each column costs 3 more (a border and two blanks), the table 1.
 */
export function layoutTable(headers: string[], cells: string[][], total: number) {
  const all = headers.map((_, i) => i);
  const natural = all.map((i) =>
    largest(
      cells.map((row) => row[i]?.length ?? 0),
      headers[i]?.length ?? 0,
    ),
  );
  const whole = all.map((i) => cells.some((row) => isWhole(row[i] ?? "")));
  const empty = all.map((i) => cells.every((row) => (row[i] ?? "") === ""));
  // Headers are never cut (cli-table3 sizes a column to its header anyway).
  const floor = (i: number) =>
    whole[i] ? natural[i]! : Math.min(natural[i]!, Math.max(MIN_WIDTH, headers[i]?.length ?? 0));
  const cost = (columns: number[], width: (i: number) => number) =>
    columns.reduce((sum, i) => sum + width(i) + 3, 1);

  // `candidates` less the columns that must go for the rest to fit at their narrowest.
  const fitting = (candidates: number[]): number[] => {
    const droppable = [
      ...candidates.filter((i) => i > 0 && !whole[i] && empty[i]).reverse(),
      ...candidates.filter((i) => i > 0 && !whole[i] && !empty[i]).reverse(),
    ];
    let shown = candidates;
    for (const drop of droppable) {
      if (cost(shown, floor) <= total) break;
      shown = shown.filter((i) => i !== drop);
    }
    return shown;
  };

  // The links in the table, or below it: whichever shows more of the columns that say something.
  const told = (columns: number[]) => columns.filter((i) => !empty[i]).length;
  let shown = fitting(all);
  let below: number[] = [];
  if (whole.some(Boolean) && (shown.length < all.length || cost(shown, floor) > total)) {
    const without = fitting(all.filter((i) => !whole[i]));
    const moved = all.filter((i) => whole[i]);
    if (cost(shown, floor) > total || told(without) + told(moved) > told(shown)) {
      shown = without;
      below = moved;
    }
  }

  // Narrow the widest column that may narrow, one character at a time, until the table fits.
  const widths = new Map(shown.map((i) => [i, natural[i]!]));
  while (cost(shown, (i) => widths.get(i)!) > total) {
    let widest: number | undefined;
    for (const i of shown) {
      const width = widths.get(i)!;
      if (width > floor(i) && (widest === undefined || width > widths.get(widest)!)) widest = i;
    }
    if (widest === undefined) break;
    widths.set(widest, widths.get(widest)! - 1);
  }
  return { shown, widths: shown.map((i) => widths.get(i)!), below };
}
