/**
 * What an object holding the API key shows of itself. `JSON.stringify(client)`, `util.inspect(client)` and
 * `util.format("%o", client)` (which shows hidden properties) all ask the object: `toJSON` and
 * `[util.inspect.custom]` answer with a view in which the key is `****` and its last four characters. The key
 * itself is kept where none of them looks: a private field, or a property that is not enumerable.
 */
import type { inspect as Inspect, InspectOptionsStylized } from "node:util";

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** `****` and the last four characters: enough to tell keys apart, never enough to use one. */
export function redactKey(key: string | undefined): string {
  if (!key) return "(none)";
  return key.length > 8 ? `****${key.slice(-4)}` : "****";
}

/** Gives `target` a `toJSON` and a `[util.inspect.custom]` (neither enumerable) that show `view()`. */
export function showAs<T extends object>(target: T, view: () => Record<string, unknown>): T {
  const name = target.constructor?.name && target.constructor !== Object ? `${target.constructor.name} ` : "";
  Object.defineProperties(target, {
    toJSON: { value: view, enumerable: false, configurable: true },
    [INSPECT]: {
      value: (depth: number, options: InspectOptionsStylized, inspect: typeof Inspect) =>
        `${name}${inspect(view(), { ...options, depth: options.depth === null ? null : depth })}`,
      enumerable: false,
      configurable: true,
    },
  });
  return target;
}

/**
 * A copy of `options` whose `apiKey` can still be read (`options.apiKey`) but is not enumerable (a spread or
 * `Object.keys` leaves it out), and which shows itself with the key redacted.
 */
export function withHiddenKey<T extends { apiKey: string }>(options: T): T {
  const { apiKey, ...rest } = options;
  const copy = { ...rest } as T;
  Object.defineProperty(copy, "apiKey", { get: () => apiKey, enumerable: false, configurable: true });
  return showAs(copy, () => ({ ...rest, apiKey: redactKey(apiKey) }));
}

/** A URL's password (`https://user:secret@host`) as it appears in text: `https://user:****@host`. */
const URL_PASSWORD = /\b([a-z][a-z\d+.-]*:\/\/[^\s/?#:@]*):[^\s/?#@]*@/gi;

/** `text` with the password of every URL in it replaced by `****`. */
export function redactUrl(text: string): string {
  return text.replace(URL_PASSWORD, "$1:****@");
}
