/**
 * The two pieces of undici the client uses, imported from their own files. undici's index also loads fetch,
 * WebSocket, EventSource, the proxy, retry and mock agents, caches and interceptors: ~1 MB that added ~40 ms
 * to every command that talks to the service, against ~17 ms for these (bench/startup.mjs); the build also
 * leaves out their HTTP/2 client (src/build.mjs). undici's package.json has no "exports" map, so these
 * files are reachable; undici-internals.d.ts types them with undici's own declarations.
 */
import { setFlagsFromString } from "node:v8";
import type { Dispatcher } from "undici";
import dispatchRequest from "undici/lib/api/api-request.js";
import Agent from "undici/lib/dispatcher/agent.js";

/*
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 runs it on its baseline tier (Liftoff) at once,
 * then recompiles the hot parser with TurboFan on a background thread. Node does not exit before that job is
 * done: ~85 ms after the last answer of every short command here, more than bare Node's whole start-up; and in
 * bulk runs it is a one-off ~35 MB spike of resident memory. Answers here are small, so the baseline tier is
 * fast enough. Only wasm is affected, and only modules compiled from now on: undici compiles llhttp on its
 * first connection. (The built CLI loads this file in a bundle through V8's code cache, whose caches depend on
 * V8's flags: src/code-cache.ts sets this one back before it writes them.)
 */
setFlagsFromString("--liftoff-only");

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
