/**
 * The two pieces of undici the client uses, imported from their own files: undici's index loads ~1 MB more
 * (fetch, WebSocket, mock agents...), ~40 ms of start-up. undici-internals.d.ts types them.
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
