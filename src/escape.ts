/**
 * Text from the service, from input files or from whoever reaches `callbacks listen` is shown, never obeyed.
 * A test name holding `\u001b[2J\u001b]0;pwned\u0007` would clear the screen and retitle the window, and an
 * OSC 8 hyperlink cut short by a table's `…` would swallow everything printed after it. So every C0 control
 * (U+0000–U+001F), DEL and every C1 control (U+0080–U+009F; U+009B is a one-character CSI to some
 * terminals) is written as a visible escape: `\t`, `\n` and `\r` by name, the others as `\xHH` (ESC is
 * `\x1b`). A backslash is left as it is: the escapes are for reading, and `--json` keeps values exact.
 * The characters that reorder or hide text are escaped the same way, as `\u202e`: the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and U+061C,
 * the zero-width space U+200B, the word joiner U+2060 and U+FEFF, and the line and paragraph separators
 * U+2028 and U+2029. A test name holding U+202E would show its text reversed. The zero-width (non-)joiners
 * U+200C and U+200D stay: Persian, Indic scripts and emoji need them, and they hide nothing.
 * `assess help formatting` documents this; every text writer of the CLI goes through these two functions.
 */

/** The C0 controls, DEL, C1, and the characters that reorder or hide text (above), as a regex class's body. */
const SHOWN_ESCAPED =
  "\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060\\u2066-\\u2069\\ufeff";
const CONTROL = new RegExp(`[${SHOWN_ESCAPED}]`);
const CONTROLS = new RegExp(`[${SHOWN_ESCAPED}]`, "g");
/** Those JSON.stringify leaves raw (it escapes only U+0000–U+001F). */
const JSON_RAW_CONTROLS = new RegExp(`[${SHOWN_ESCAPED.slice(SHOWN_ESCAPED.indexOf("\\u007f"))}]`, "g");
const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/**
 * `text` with its control characters escaped, except those in `keep` (e.g. "\t\n" where the format allows
 * tabs and line breaks). Text without any comes back as it is, at the cost of one regex test.
 */
export function escapeControls(text: string, keep = ""): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (c) => (keep.includes(c) ? c : (NAMED[c] ?? visible(c))));
}

/** `\x1b` for a control of one byte, `\u202e` for the wider characters. */
function visible(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * JSON.stringify with DEL, the C1 controls and the characters that reorder or hide text escaped too (`\u009b`): still the same JSON value, and safe to
 * print on a terminal. They can only occur inside strings, so the replacement never touches the syntax.
 */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  if (text === undefined) return String(text);
  return text.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
