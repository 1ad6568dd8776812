/**
 * Control endpoints under /_sandbox (no API key), so a sandbox in another process (`assess sandbox`) can be
 * driven by tests and by `assess sandbox complete`.
 */

import type { FinalStatus } from "../spec/final-statuses.js";
import type { Reply } from "./context.js";
import { ApiError, MSG, statusError } from "./errors.js";
import type { FaultSet } from "./faults.js";
import { splitPath } from "./router.js";
import type { SandboxState } from "./state.js";
import type { CompletionDelivery, RecordedRequest } from "./types.js";
import { isObject } from "./validate.js";

export interface ControlDeps {
  faults: FaultSet;
  requests: RecordedRequest[];
  state: () => SandboxState;
  health: () => Record<string, unknown>;
  complete: (id: number, status: FinalStatus | undefined) => Promise<{ delivered: CompletionDelivery[] }>;
}

/** `path` is the part after the prefix, starting with "/_sandbox". */
export async function handleControl(
  deps: ControlDeps,
  method: string,
  path: string,
  query: URLSearchParams,
  body: () => unknown,
): Promise<Reply> {
  try {
    return await route(deps, method, splitPath(path).slice(1), query, body);
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, body: e.body };
    throw e;
  }
}

async function route(
  deps: ControlDeps,
  method: string,
  parts: string[],
  query: URLSearchParams,
  body: () => unknown,
): Promise<Reply> {
  const [head, second, third] = parts;
  const key = `${method} ${head ?? ""}`;
  if (parts.length === 1) {
    switch (key) {
      case "GET health":
        return { status: 200, body: deps.health() };
      case "GET state":
        return { status: 200, body: deps.state() };
      case "GET requests": {
        const since = Number(query.get("since") ?? "0");
        return {
          status: 200,
          body: deps.requests.filter((r) => r.seq > (Number.isFinite(since) ? since : 0)),
        };
      }
      case "DELETE requests": {
        const cleared = deps.requests.length;
        deps.requests.length = 0;
        return { status: 200, body: { cleared } };
      }
      case "GET faults":
        return { status: 200, body: deps.faults.list() };
      case "POST faults":
        return { status: 201, body: { added: deps.faults.add(body() as never) } };
      case "DELETE faults":
        return { status: 200, body: { cleared: deps.faults.clear() } };
    }
  }
  if (parts.length === 3 && head === "invitations" && third === "complete" && /^\d+$/.test(second ?? "")) {
    if (method !== "POST") return { status: 405, body: { statusCode: 405, message: MSG.methodNotAllowed } };
    const payload = body();
    const status = isObject(payload) ? payload.status : undefined;
    if (status !== undefined && typeof status !== "string") throw statusError(400, "status must be a string");
    return { status: 200, body: await deps.complete(Number(second), status as FinalStatus | undefined) };
  }
  return { status: 404, body: { statusCode: 404, message: MSG.resourceNotFound } };
}
