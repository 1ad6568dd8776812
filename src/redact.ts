/**
 * What an object holding the API key shows of itself to JSON.stringify and util.inspect: a view with the key
 * redacted; the key itself is kept where neither looks (a property that is not enumerable).
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

/** A copy of `options` whose `apiKey` is readable but not enumerable, and which shows itself redacted. */
export function withHiddenKey<T extends { apiKey: string }>(options: T): T {
  const { apiKey, ...rest } = options;
  const copy = { ...rest } as T;
  Object.defineProperty(copy, "apiKey", { get: () => apiKey, enumerable: false, configurable: true });
  return showAs(copy, () => ({ ...rest, apiKey: redactKey(apiKey) }));
}

/** `user:password@` up to the last `@` before the path, as URL parsers read it: `p@ss` is one password. */
const URL_PASSWORD = /\b([a-z][a-z\d+.-]*:\/\/[^\s/?#:]*):[^\s/?#]*@/gi;

/** `https://user:secret@host` → `https://user:****@host`, for every URL in `text`. */
export function redactUrl(text: string): string {
  return text.replace(URL_PASSWORD, "$1:****@");
}

/**
 * A URL as messages and files show it: its user info and query may be credentials (`user:password@`,
 * `?code=…`), so they are replaced: `https://****@host/path?…`. The fragment is left out.
 */
export function redactUrlParts(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return redactUrl(text);
  }
  const user = url.username !== "" || url.password !== "" ? "****@" : "";
  return `${url.protocol}//${user}${url.host}${url.pathname}${url.search !== "" ? "?…" : ""}`;
}
