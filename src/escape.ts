/**
 * Text from the service, input files or callers is shown, never obeyed (a test name must not clear the screen
 * or reverse its text): C0 and C1 controls, DEL, and the characters that reorder or hide text (bidi controls,
 * zero-width space, word joiner, invisible operators, deprecated format controls, BOM, line and paragraph
 * separators) are written as visible escapes, `\t`, `\x1b`, `\u202e`. ZWJ and ZWNJ stay: scripts and emoji
 * need them. Every text writer goes through these two.
 */

/** The characters above, as a regex class's body. */
const SHOWN_ESCAPED =
  "\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff";
const CONTROL = new RegExp(`[${SHOWN_ESCAPED}]`);
const CONTROLS = new RegExp(`[${SHOWN_ESCAPED}]`, "g");
/** Those JSON.stringify leaves raw (it escapes only U+0000–U+001F). */
const JSON_RAW_CONTROLS = new RegExp(`[${SHOWN_ESCAPED.slice(SHOWN_ESCAPED.indexOf("\\u007f"))}]`, "g");
const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** `text` with its control characters escaped, except those in `keep` (e.g. "\t\n"). */
export function escapeControls(text: string, keep = ""): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (c) => (keep.includes(c) ? c : (NAMED[c] ?? visible(c))));
}

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** JSON.stringify with the characters it leaves raw escaped too: the same JSON value, safe on a terminal. */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  if (text === undefined) return String(text);
  return text.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A path as a shell word, for suggestions that show a command. */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
