import { UsageError } from "../errors.js";

/** `https://h/api` + `/v3/tests` → `https://h/api/v3/tests`: the base URL's own path is kept as a prefix. */
export function joinUrl(
  base: string,
  path: string,
  query?: Record<string, string | number | boolean | undefined>,
): string {
  if (climbs(path)) {
    throw new UsageError(
      `The path ${path} climbs above the base URL's path (${new URL(base).pathname}) with ..`,
      "Give the path under the base URL (e.g. /v3/tests), or change --base-url; nothing was sent.",
    );
  }
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/**
 * Whether `..` segments take `path` above where it starts: the URL parser would resolve them, leaving the base
 * URL's path prefix (`/api`) behind. `.` and `..` count percent-encoded too, and `\` separates as `/` does.
 */
function climbs(path: string): boolean {
  let depth = 0;
  for (const segment of path.split(/[/\\]/)) {
    const name = segment.replace(/%2e/gi, ".");
    if (name === "..") depth--;
    else if (name !== "." && name !== "") depth++;
    if (depth < 0) return true;
  }
  return false;
}
