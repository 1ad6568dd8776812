import { UsageError } from "../../errors.js";
import { field, isRecord } from "../../fields.js";

/**
 * `--set key=value` pairs as an object: dotted keys nest, values that read as JSON are typed (but numbers
 * with leading zeros stay text: they are usually ids).
 */
export function parseSetPairs(pairs: readonly string[], flag = "--set"): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const path = pair.slice(0, Math.max(at, 0)).split(".");
    if (at <= 0 || path.some((part) => part === ""))
      throw new UsageError(`${flag} expects key=value, got "${pair}"`);
    const last = path.pop()!;
    let target = result;
    for (const part of path) {
      const next = isRecord(target[part]) ? target[part] : {};
      target[part] = next;
      target = next;
    }
    target[last] = typedValue(pair.slice(at + 1));
  }
  return result;
}

function typedValue(raw: string): unknown {
  const jsonLike = /^-?(0|[1-9]\d*)(\.\d+)?$/.test(raw) || ["true", "false", "null"].includes(raw);
  if (!jsonLike && !/^[[{]/.test(raw.trim())) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Only the fields given: bodies send only what the user gave. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Deep merge of plain objects: later sources win; arrays and scalars are replaced, not merged. */
export function mergeObjects(...sources: Array<Record<string, unknown>>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      const current = result[key];
      result[key] = isRecord(current) && isRecord(value) ? mergeObjects(current, value) : value;
    }
  }
  return result;
}

/**
 * A write's answer as a table shows it, with the values sent where it shows none: the service may answer a write
 * with a message only, or nothing (`{"message": "Done"}`, 204), where a row of empty columns would say nothing.
 * JSON (`out.isJson`) shows the answer as it came.
 */
export function withSent<T extends object>(
  out: { isJson: boolean },
  answer: T,
  sent: Record<string, unknown>,
): T | Record<string, unknown> {
  if (out.isJson) return answer;
  const shown: Record<string, unknown> = isRecord(answer) ? { ...answer } : {};
  for (const [key, value] of Object.entries(sent))
    if (value !== undefined && field(answer, key) == null) shown[key] = value;
  return shown;
}
