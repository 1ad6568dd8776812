import stringWidth from "string-width";
import { largest } from "../arrays.js";

/**
 * Fitting a table to the terminal, as gh does: a link, an e-mail or a date is never cut, so other columns
 * narrow first (prose, then the widest), then leave (empty ones first, then from the right, never the first);
 * links (and dates) that cannot fit leave the table for lines of their own below it, each keyed by its row's
 * first cell, which stays in the table to name the row. A column of prose (a plan's DETAIL) wraps within its
 * cell, at blanks, instead of being cut. Widths are columns of the terminal (string-width: a CJK character or an
 * emoji takes two, a combining mark none), as cli-table3 pads by; output.ts loads this file with cli-table3.
 */

/** The columns of a terminal `text` takes. */
export const width = (text: string): number => stringWidth(text);

/**
 * Only links, e-mail addresses or ISO dates (one, or a list joined by ", " as cellText joins them, or a span of
 * two dates, "start → end").
 */
const WHOLE =
  /^(?:(?:https?:\/\/\S+|[^\s@,]+@[^\s@,]+\.[^\s@,]+|\d{4}-\d\d-\d\d(?:T[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?)(?:, | → |$))+$/;

/** Narrower than this (or than its header) a cut column says nothing. */
const MIN_WIDTH = 8;
/** Narrower than this (or than its longest word) a column of prose is more lines than words. */
const PROSE_WIDTH = 20;

export function isWhole(text: string): boolean {
  return text.length > 0 && WHOLE.test(text);
}

/**
 * Which columns of `headers` and `cells` (texts as shown) a table of `total` columns shows, at what widths,
 * and which columns of links go `below` it. Each column costs 3 more (a border and two blanks), the table 1.
 * Columns marked in `prose` wrap (./output.ts breaks them with wrapCell) rather than being cut.
 */
export function layoutTable(headers: string[], cells: string[][], total: number, prose: boolean[] = []) {
  const all = headers.map((_, i) => i);
  const natural = all.map((i) =>
    largest(
      cells.map((row) => width(row[i] ?? "")),
      width(headers[i] ?? ""),
    ),
  );
  const whole = all.map((i) => cells.some((row) => isWhole(row[i] ?? "")));
  const empty = all.map((i) => cells.every((row) => (row[i] ?? "") === ""));
  const wraps = all.map((i) => prose[i] === true && !whole[i]);
  const longestWord = (i: number) =>
    Math.max(0, ...cells.flatMap((row) => (row[i] ?? "").split(" ").map(width)));
  // Headers are never cut (cli-table3 sizes a column to its header anyway), nor a word of prose.
  const floor = (i: number) =>
    whole[i]
      ? natural[i]!
      : Math.min(
          natural[i]!,
          Math.max(wraps[i] ? Math.max(PROSE_WIDTH, longestWord(i)) : MIN_WIDTH, width(headers[i] ?? "")),
        );
  const cost = (columns: number[], width: (i: number) => number) =>
    columns.reduce((sum, i) => sum + width(i) + 3, 1);

  // `candidates` less the columns that must go for the rest to fit: empty ones before anything is cut, the
  // others only when the rest cannot fit at their narrowest.
  const fitting = (candidates: number[]): number[] => {
    let shown = candidates;
    for (const drop of candidates.filter((i) => i > 0 && !whole[i] && empty[i]).reverse()) {
      if (cost(shown, (i) => natural[i]!) <= total) break;
      shown = shown.filter((i) => i !== drop);
    }
    for (const drop of shown.filter((i) => i > 0 && !whole[i]).reverse()) {
      if (cost(shown, floor) <= total) break;
      shown = shown.filter((i) => i !== drop);
    }
    return shown;
  };

  // Columns of links go below the table, the widest first, until the rest fits; as few as show the most of the
  // columns that say something. The first column stays to key the lines below (unless it alone cannot fit).
  const told = (columns: number[]) => columns.filter((i) => !empty[i]).length;
  const movable = all
    .filter((i) => whole[i] && (i > 0 || cost([0], floor) > total))
    .sort((a, b) => natural[b]! - natural[a]! || b - a);
  let shown = fitting(all);
  let below: number[] = [];
  let best = cost(shown, floor) <= total ? told(shown) : -1;
  for (let k = 1; k <= movable.length; k++) {
    const moved = movable.slice(0, k);
    const rest = fitting(all.filter((i) => !moved.includes(i)));
    const score = cost(rest, floor) <= total ? told(rest) + told(moved) : -1;
    if (score > best || (best < 0 && k === movable.length)) {
      [shown, below, best] = [rest, all.filter((i) => moved.includes(i)), score];
    }
  }

  // Narrow the widest column that may narrow, prose first, one character at a time, until the table fits.
  const widths = new Map(shown.map((i) => [i, natural[i]!]));
  const widest = (columns: number[]) => {
    let found: number | undefined;
    for (const i of columns) {
      const columnWidth = widths.get(i)!;
      if (columnWidth > floor(i) && (found === undefined || columnWidth > widths.get(found)!)) found = i;
    }
    return found;
  };
  while (cost(shown, (i) => widths.get(i)!) > total) {
    const next = widest(shown.filter((i) => wraps[i])) ?? widest(shown);
    if (next === undefined) break;
    widths.set(next, widths.get(next)! - 1);
  }
  return { shown, widths: shown.map((i) => widths.get(i)!), below };
}

/** `text` broken at blanks into lines of at most `columns` (a longer word on a line of its own, whole). */
export function wrapCell(text: string, columns: number): string {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ").filter(Boolean)) {
    if (current === "") current = word;
    else if (width(current) + 1 + width(word) <= columns) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  lines.push(current);
  return lines.join("\n");
}

/** `text` cut to at most `columns`, ending in `…` when cut (never inside a character or an emoji's sequence). */
export function truncate(text: string, columns: number): string {
  if (width(text) <= columns) return text;
  let kept = "";
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    if (width(kept + segment) > columns - 1) break;
    kept += segment;
  }
  return `${kept}…`;
}
