/**
 * The two pieces of undici the client uses, imported from their own files. undici's index also loads fetch,
 * WebSocket, EventSource, the proxy, retry and mock agents, caches and interceptors: ~1 MB that added ~40 ms
 * to every command that talks to the service, against ~17 ms for these (bench/startup.mjs); the build also
 * leaves out their HTTP/2 client (src/build.mjs). undici's package.json has no "exports" map, so these
 * files are reachable; undici-internals.d.ts types them with undici's own declarations.
 */
import type { Dispatcher } from "undici";
import dispatchRequest from "undici/lib/api/api-request.js";
import Agent from "undici/lib/dispatcher/agent.js";

export { Agent, type Dispatcher };

/** undici's `request(url, options)` with the dispatcher given explicitly (no global dispatcher). */
export function request(
  dispatcher: Dispatcher,
  url: string,
  options: Omit<Dispatcher.RequestOptions, "origin" | "path">,
): Promise<Dispatcher.ResponseData> {
  const { origin, pathname, search } = new URL(url);
  return dispatchRequest.call(dispatcher, { ...options, origin, path: `${pathname}${search}` });
}
