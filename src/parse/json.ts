/**
 * JSON.parse's complaint about `text`, pointing at a line and column: Node 20 says only "at position 22", which
 * makes a person count characters in the file they are editing (Node 22's "(line 4 column 1)" reads the same).
 */
export function jsonErrorText(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = / at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  if (!at) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return message.replace(at[0], ` at line ${line}, column ${column}`);
}

/** `text` as JSON, or undefined when it is not JSON (a line a crash cut short, a file changed by hand). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
