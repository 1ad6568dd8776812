/**
 * The sandbox server: one node:http server for both APIs. Per request: read the body, record it, apply fault
 * rules, match the route (404/405), check the key (401), run the handler, answer.
 */
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { BodyTooLarge, RequestBody, readBody } from "./body.js";
import type { Reply, RouteContext, SandboxEnv } from "./context.js";
import { handleControl } from "./control.js";
import { ApiError, badRequest, MSG } from "./errors.js";
import { FaultSet } from "./faults.js";
import { accountForKey } from "./keys.js";
import { completeAttempt } from "./lifecycle.js";
import { Notifier } from "./notify.js";
import { loadStateFile, StateSaver } from "./persistence.js";
import { Router } from "./router.js";
import { registerAttemptRoutes } from "./routes/attempts.js";
import { registerCallbackRoutes } from "./routes/callbacks.js";
import { registerEmployeeSkillRoutes } from "./routes/employee-skills.js";
import { registerEmployeeRoutes } from "./routes/employees.js";
import { registerGdprRoutes } from "./routes/gdpr.js";
import { registerInvitationRoutes } from "./routes/invitations.js";
import { registerLinkRoutes } from "./routes/links.js";
import { registerReportRoutes } from "./routes/reports.js";
import { registerTestRoutes } from "./routes/tests.js";
import { registerUserRoutes } from "./routes/users.js";
import { seedState } from "./seed.js";
import { Store } from "./state.js";
import type { FaultRule, RecordedRequest, Sandbox, SandboxOptions } from "./types.js";

/** "api", "/api/", "/" → "/api", "/api", "" */
function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? "").replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

function stripPrefix(path: string, prefix: string): string | undefined {
  if (prefix === "") return path;
  if (path === prefix) return "/";
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  let payload: string | Buffer;
  let type: string;
  if (Buffer.isBuffer(reply.body)) {
    payload = reply.body;
    type = reply.contentType ?? "application/octet-stream";
  } else if (typeof reply.body === "string" || reply.body === undefined) {
    payload = reply.body ?? "";
    type = reply.contentType ?? "text/plain; charset=utf-8";
  } else {
    payload = JSON.stringify(reply.body);
    type = reply.contentType ?? "application/json; charset=utf-8";
  }
  res.writeHead(reply.status, {
    "content-type": type,
    "content-length": Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

function faultReply(rule: FaultRule): Reply {
  const status = rule.status ?? 500;
  const body =
    rule.body ?? JSON.stringify({ statusCode: status, message: STATUS_CODES[status] ?? "Injected fault" });
  const trimmed = body.trimStart();
  const guessed = trimmed.startsWith("<")
    ? "text/html; charset=utf-8"
    : trimmed.startsWith("{") || trimmed.startsWith("[")
      ? "application/json; charset=utf-8"
      : "text/plain; charset=utf-8";
  return { status, body, contentType: rule.contentType ?? guessed, headers: rule.headers ?? {} };
}

/** The control endpoints take JSON whatever the content type says (curl users forget it). */
function lenientJson(body: RequestBody): unknown {
  if (body.raw.length === 0) return undefined;
  try {
    return JSON.parse(body.raw.toString("utf8"));
  } catch {
    throw badRequest(MSG.invalidJson);
  }
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? "127.0.0.1";
  const assessPrefix = normalizePrefix(opts.assessPrefix);
  const skillsPrefix = normalizePrefix(opts.skillsPrefix);
  const now = opts.now ?? (() => new Date());
  const recordBodies = opts.recordBodies ?? true;
  const latencyMs = opts.latencyMs ?? 0;
  const log = opts.log;

  const loaded = opts.stateFile ? loadStateFile(opts.stateFile) : undefined;
  const store = new Store(loaded ?? seedState(now()));
  const saver = opts.stateFile
    ? new StateSaver(
        opts.stateFile,
        () => store.data,
        (e) => log?.(`sandbox: saving the state file failed: ${e.message}`),
      )
    : undefined;
  const changed = () => saver?.schedule();
  // Write a freshly seeded state at once, so the file exists from the start.
  if (saver && !loaded) changed();

  const notifier = new Notifier();
  const faults = new FaultSet();
  const requests: RecordedRequest[] = [];
  let seq = 0;
  let origin = "";
  const env: SandboxEnv = {
    store,
    now,
    assessUrl: () => `${origin}${assessPrefix}`,
    notifier,
    shapes: opts.shapes ?? "real",
  };

  const assessRouter = new Router();
  for (const register of [
    registerTestRoutes,
    registerInvitationRoutes,
    registerLinkRoutes,
    registerReportRoutes,
    registerAttemptRoutes,
    registerCallbackRoutes,
    registerUserRoutes,
    registerGdprRoutes,
  ]) {
    register(assessRouter);
  }
  const skillsRouter = new Router();
  registerEmployeeRoutes(skillsRouter);
  registerEmployeeSkillRoutes(skillsRouter);

  const complete: Sandbox["completeAttempt"] = (id, status) => completeAttempt(env, id, status, changed);

  const controlDeps = {
    faults,
    requests,
    state: () => store.data,
    health: () => ({
      status: "ok",
      url: `${origin}${assessPrefix}`,
      skillsUrl: `${origin}${skillsPrefix}`,
      requests: seq,
    }),
    complete,
  };

  /** Which API a path belongs to, and the path without its prefix. */
  function classify(path: string): { api: "assess" | "skills"; path: string; known: boolean } {
    const a = stripPrefix(path, assessPrefix);
    if (a !== undefined && isUnder(a, "/v3")) return { api: "assess", path: a, known: true };
    const s = stripPrefix(path, skillsPrefix);
    if (s !== undefined && isUnder(s, "/employees")) return { api: "skills", path: s, known: true };
    if (s !== undefined && skillsPrefix !== "" && a === undefined)
      return { api: "skills", path: s, known: false };
    return { api: "assess", path: a ?? path, known: false };
  }

  function controlPath(path: string): string | undefined {
    for (const prefix of ["", assessPrefix, skillsPrefix]) {
      const rest = stripPrefix(path, prefix);
      if (rest !== undefined && isUnder(rest, "/_sandbox")) return rest;
    }
    return undefined;
  }

  async function dispatch(
    target: { api: "assess" | "skills"; path: string; known: boolean },
    method: string,
    query: URLSearchParams,
    req: IncomingMessage,
    body: RequestBody,
  ): Promise<Reply> {
    const router = target.api === "assess" ? assessRouter : skillsRouter;
    const match = target.known ? router.match(method, target.path) : ({ kind: "none" } as const);
    if (match.kind === "none")
      return { status: 404, body: { statusCode: 404, message: MSG.resourceNotFound } };
    if (match.kind === "wrong-method") {
      return {
        status: 405,
        body: { statusCode: 405, message: MSG.methodNotAllowed },
        headers: { allow: match.allow.join(", ") },
      };
    }
    const key = req.headers["x-api-key"];
    const account = accountForKey(Array.isArray(key) ? key[0] : key);
    if (!account) return { status: 401, body: { statusCode: 401, message: MSG.invalidKey } };
    const ctx: RouteContext = {
      env,
      store,
      now: now(),
      account,
      method,
      params: match.params,
      query,
      headers: req.headers,
      rawBody: body.raw,
      json: () => body.json(),
      multipart: () => body.multipart(),
    };
    try {
      return await match.handler(ctx);
    } catch (e) {
      if (e instanceof ApiError) return { status: e.status, body: e.body, headers: e.headers ?? {} };
      log?.(`sandbox: internal error on ${method} ${target.path}: ${(e as Error).stack ?? String(e)}`);
      return { status: 500, body: { statusCode: 500, message: "Internal server error" } };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = (req.method ?? "GET").toUpperCase();
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const rawPath = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
    const fullPath = rawPath.length > 1 ? rawPath.replace(/\/+$/, "") || "/" : rawPath;
    const query = new URLSearchParams(q >= 0 ? rawUrl.slice(q + 1) : "");
    const logLine = (status: number | string, note = "") =>
      log?.(`${method} ${fullPath} ${status} ${Math.round(performance.now() - started)}ms${note}`);

    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        res.setHeader("connection", "close");
        send(res, { status: 413, body: { statusCode: 413, message: "Request body too large" } });
        logLine(413);
      }
      return;
    }
    const body = new RequestBody(raw, req.headers["content-type"]);

    const control = controlPath(fullPath);
    if (control !== undefined) {
      let reply: Reply;
      try {
        reply = await handleControl(controlDeps, method, control, query, () => lenientJson(body));
      } catch (e) {
        reply =
          e instanceof ApiError
            ? { status: e.status, body: e.body }
            : { status: 500, body: { statusCode: 500, message: (e as Error).message } };
      }
      send(res, reply);
      logLine(reply.status);
      return;
    }

    const target = classify(fullPath);
    const record: RecordedRequest = {
      seq: ++seq,
      method,
      path: target.path,
      rawUrl,
      query: Object.fromEntries(query),
      headers: flattenHeaders(req.headers),
      body: recordBodies ? body.forRecord() : undefined,
      status: 0,
      api: target.api,
    };
    requests.push(record);
    if (latencyMs > 0) await sleep(latencyMs);

    const { delayMs, terminal } = faults.take(method, target.path);
    if (delayMs > 0) await sleep(delayMs);
    if (terminal?.kind === "status") {
      const reply = faultReply(terminal);
      record.status = reply.status;
      send(res, reply);
      logLine(reply.status, " (fault: status)");
      return;
    }
    if (terminal?.kind === "reset-before") {
      req.socket.destroy();
      logLine("-", " (fault: reset-before)");
      return;
    }
    if (terminal?.kind === "hang") {
      // Never answered; close() destroys the connection.
      logLine("-", " (fault: hang)");
      return;
    }

    const reply = await dispatch(target, method, query, req, body);
    record.status = reply.status;
    if (method !== "GET" && method !== "HEAD" && reply.status < 400) changed();
    if (terminal?.kind === "lost-after") {
      // Processed (state changed) but the answer never reaches the client.
      req.socket.destroy();
      logLine(reply.status, " (fault: lost-after)");
      return;
    }
    send(res, reply);
    logLine(reply.status);
  }

  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      log?.(`sandbox: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent)
        send(res, { status: 500, body: { statusCode: 500, message: "Internal server error" } });
    });
  });
  server.on("clientError", (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}${assessPrefix}`,
    skillsUrl: `${origin}${skillsPrefix}`,
    port,
    requests,
    faults: {
      add: (rule) => {
        try {
          faults.add(rule);
        } catch (e) {
          throw e instanceof ApiError ? new Error(`Invalid fault rule: ${e.message}`) : e;
        }
      },
      clear: () => {
        faults.clear();
      },
    },
    completeAttempt: complete,
    state: store.data,
    close() {
      closing ??= (async () => {
        notifier.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive and hanging connections would otherwise hold close() open.
        server.closeAllConnections();
        await closed;
        await saver?.flush();
      })();
      return closing;
    },
  };
}
