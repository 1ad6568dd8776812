/**
 * Text from the service, from input files or from whoever reaches `callbacks listen` is shown, never obeyed.
 * A test name holding `\u001b[2J\u001b]0;pwned\u0007` would clear the screen and retitle the window, and an
 * OSC 8 hyperlink cut short by a table's `…` would swallow everything printed after it. So every C0 control
 * (U+0000–U+001F), DEL and every C1 control (U+0080–U+009F; U+009B is a one-character CSI to some
 * terminals) is written as a visible escape: `\t`, `\n` and `\r` by name, the others as `\xHH` (ESC is
 * `\x1b`). A backslash is left as it is: the escapes are for reading, and `--json` keeps values exact.
 * `assess help formatting` documents this; every text writer of the CLI goes through these two functions.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this module's job
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** The controls JSON.stringify leaves raw (it escapes only U+0000–U+001F). */
const JSON_RAW_CONTROLS = /[\u007f-\u009f]/g;
const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/**
 * `text` with its control characters escaped, except those in `keep` (e.g. "\t\n" where the format allows
 * tabs and line breaks). Text without any comes back as it is, at the cost of one regex test.
 */
export function escapeControls(text: string, keep = ""): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (c) =>
    keep.includes(c) ? c : (NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`),
  );
}

/**
 * JSON.stringify with DEL and the C1 controls escaped too (`\u009b`): still the same JSON value, and safe to
 * print on a terminal. They can only occur inside strings, so the replacement never touches the syntax.
 */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  if (text === undefined) return String(text);
  return text.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
