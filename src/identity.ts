/**
 * Who a record is, as every matcher compares it: a file's rows against the service's employees (`employees
 * sync`), rows of one upsert against each other, a bulk invite's rows against the attempts that finished.
 * The service's answers are not as tidy as a checked file: an e-mail may carry a trailing space or a
 * zero-width character, an external id another case, an id may come as `"007"` or `true`. Two spellings of
 * one person must be one key, and an id that is not plainly one must not become someone else's.
 */

/** Zero-width space, non-joiner and joiner, word joiner, byte-order mark (zero-width no-break space). */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;
const PLAIN = /^[\x21-\x7e]+$/;

/** An e-mail as a key: zero-width characters removed, trimmed, NFC, case-folded; undefined when empty or no text. */
export function emailKey(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  // Printable ASCII without spaces (every checked file's e-mail): nothing to remove, trim or compose.
  if (PLAIN.test(value)) return value.toLowerCase();
  const key = value.replace(ZERO_WIDTH, "").trim().normalize("NFC").toLowerCase();
  return key === "" ? undefined : key;
}

/** An external (HR system) employee id as a key: trimmed, case-folded; a number as its digits. */
export function externalKey(value: unknown): string | undefined {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== "string") return undefined;
  const key = text.trim().toLowerCase();
  return key === "" ? undefined : key;
}

/**
 * An id the service gave, accepted only when it is plainly one: a JSON integer, or its canonical digits in a
 * text (`"42"`), positive and safe. `"007"`, `"0x10"`, `"1e1"`, `" 7"`, `7.5` and `true` are not ids (Number()
 * would make 7, 16 and 10 and 1 of some of them: another record).
 */
export function serviceId(value: unknown): number | undefined {
  if (typeof value === "string") {
    if (!/^[1-9]\d{0,15}$/.test(value)) return undefined;
    value = Number(value);
  }
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
