/**
 * What a terminal of `cols` columns shows after `raw` (a pseudo-terminal's output): a tiny emulator of what
 * our output uses: text wrapping at the last column, CR, LF, erase to the end of the line (ESC [K) and colours
 * (ignored). Any other escape sequence is dropped. Lines come back without trailing blanks.
 */
export function screenLines(raw: string, cols: number): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are what it reads
  const tokens = raw.match(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007|[\s\S]/gu) ?? [];
  for (const token of tokens) {
    const line = lines[row] as string[];
    if (token === "\r") col = 0;
    else if (token === "\n") {
      row++;
      col = 0;
      lines[row] ??= [];
    } else if (token === "\u001b[K") line.length = Math.min(line.length, col);
    else if (token.startsWith("\u001b")) continue;
    else {
      if (col >= cols) {
        row++;
        col = 0;
        lines[row] ??= [];
      }
      const target = lines[row] as string[];
      while (target.length < col) target.push(" ");
      target[col++] = token;
    }
  }
  return lines.map((l) => l.join("").trimEnd());
}
