/**
 * Help text wrapped to the terminal, as commander wraps its option lists: 80 columns when the width is unknown
 * (piped, or no terminal). Help is written as logical lines, one per paragraph or list item; a line wider than
 * the terminal breaks at blanks, and its continuation lines hang under the text it started:
 *
 *   2    usage or input error: bad flag, missing value,      (an item: "term", two blanks or more, text)
 *        invalid CSV; nothing was sent
 *   $ assess invite bulk candidates.csv --test 1001 \       (an example: a shell line, continued with \)
 *       --concurrency 4
 *
 * A word wider than the line (a URL) is never cut: it gets a line of its own.
 */

/** The columns help may use on `stream`: its width on a terminal, else 80. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
}

export function wrapText(text: string, width: number): string {
  return text
    .split("\n")
    .map((line) => (line.length <= width ? line : wrapLine(line, width)))
    .join("\n");
}

function wrapLine(line: string, width: number): string {
  const example = /^(\s*)\$ /.exec(line);
  const item = /^(\s*\S+(?: \S+)*? {2,})\S/.exec(line);
  const lead = /^\s*/.exec(line)?.[0].length ?? 0;
  const hang = example ? lead + 4 : item ? (item[1]?.length ?? 0) : lead;
  // A hanging indent that leaves less than half the line is no help: continue under the line's start.
  const indent = " ".repeat(hang > width / 2 ? lead : hang);
  const tail = example ? " \\" : "";
  // Each chunk keeps the blanks before it, so the first line keeps its alignment; continuations drop them.
  // An example breaks only between shell words: a quoted argument is one chunk.
  const chunks = line.slice(lead).match(example ? / *(?:'[^']*'|"[^"]*"|\S)+/g : / *\S+/g) ?? [];
  const lines: string[] = [];
  let current = line.slice(0, lead) + (chunks.shift() ?? "");
  let comment = false;
  for (const chunk of chunks) {
    // A shell comment goes on as comments: a backslash would not continue it.
    comment ||= example !== null && chunk.trimStart().startsWith("#");
    if (current.length + chunk.length + (comment ? 0 : tail.length) <= width) current += chunk;
    else {
      lines.push(current + (comment ? "" : tail));
      current = indent + (comment && !chunk.trimStart().startsWith("#") ? "# " : "") + chunk.trimStart();
    }
  }
  lines.push(current);
  return lines.join("\n");
}
