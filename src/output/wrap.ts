import { stripVTControlCharacters } from "node:util";

/**
 * Help text wrapped to the terminal (80 columns when piped). A line wider than that breaks at blanks, its
 * continuations hanging under an item's text ("term", two blanks or more, text) or, for a `$ ` example, a
 * shell line continued with \. A word wider than the line (a URL) is never cut.
 */

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
  // Chunks keep the blanks before them (continuations drop them); a quoted shell argument is one chunk.
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

/**
 * A message on stderr (after its `prefix`: "warning: ", "error: ") for a terminal of `width` columns: each of its
 * lines broken at blanks, never inside a word (a URL, a flag, a path stays whole, alone on its line when longer
 * than the line), continuations under the text: after the prefix on the first line, under its own indent on the
 * others. Shell lines (`$ …`, `export …`) stay whole; a `# ` comment goes on as comments. `width` undefined (not a
 * terminal): as it is.
 */
export function wrapMessage(prefix: string, message: string, width: number | undefined): string {
  const text = `${prefix}${message}`;
  if (width === undefined) return text;
  // The prefix may be coloured: only what shows takes room.
  const columns = (line: string) => [...stripVTControlCharacters(line)].length;
  return text
    .split("\n")
    .map((line, n) => {
      // A shell line is never broken: pasted, a broken one would not run (the terminal folds it instead).
      if (columns(line) <= width || /^\s*(?:\$ |export )/.test(line)) return line;
      const lead = /^\s*/.exec(line)?.[0].length ?? 0;
      const hang = n === 0 ? columns(prefix) : lead;
      // A shell comment goes on as comments.
      const comment = /^\s*# /.test(line) ? "# " : "";
      const indent = " ".repeat(hang > width / 2 ? 0 : hang) + comment;
      const words = line.slice(lead).split(/ +/);
      const lines: string[] = [];
      let current = line.slice(0, lead) + (words.shift() ?? "");
      for (const word of words) {
        if (columns(current) + 1 + columns(word) <= width) current += ` ${word}`;
        else {
          lines.push(current);
          current = indent + word;
        }
      }
      lines.push(current);
      return lines.join("\n");
    })
    .join("\n");
}
