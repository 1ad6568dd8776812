/**
 * `assess mcp --http`: the same tools over Streamable HTTP (the MCP SDK's StreamableHTTPServerTransport, one
 * stateful session each), for a team. Every request passes, in this order:
 * - the path (/mcp), the Host header (when listening on loopback: the address listened on; DNS rebinding) and
 *   the Origin header (a browser's page must be of a loopback origin): 404, 403, 403;
 * - a bearer token of `assess mcp token create` (tokens.ts), read again each time: 401 with WWW-Authenticate;
 * - a body of at most 4 MiB (413), a session of that same token (404), room for a new session (503; a
 *   token's own least recently used session is closed when it has maxSessionsPerToken).
 * A session's server is built with its token's write groups and its profile's client; its actor is the
 * token's name. Sessions unused for idleMs are closed, swept before each request and every minute.
 */
import { randomUUID } from "node:crypto";
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, isIPv4 } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { listenError } from "../commands/shared/listen.js";
import { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { VERSION } from "../version.js";
import { WRITE_GROUPS } from "./groups.js";
import { buildServer, MAX_MESSAGE_BYTES, toolEnv } from "./serve.js";
import { findToken, readTokens, type StoredToken } from "./tokens.js";

type Options = { allowWrites?: boolean | string; lockdown?: boolean; port: number; host?: string };

const PATH = "/mcp";

/** How many sessions the server holds and for how long, by its clock; tests give smaller ones and a clock. */
export interface Limits {
  /** Sessions open at once: each holds a server and, for its profile, a client. */
  maxSessions: number;
  /** Sessions of one token at once: past it, its least recently used is closed, so no token takes them all. */
  maxSessionsPerToken: number;
  /**
   * A session unused this long is closed (its client initializes again). One serving a request (a POST still
   * unanswered) is in use; a stream of notifications (GET) alone is not.
   */
  idleMs: number;
  now: () => number;
}

export const LIMITS: Limits = {
  maxSessions: 100,
  maxSessionsPerToken: 10,
  idleMs: 30 * 60 * 1000,
  now: Date.now,
};
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /**
   * The hash of the token that opened it: only that token's requests reach it (not another token of the same
   * name, made after a revoke with other write groups or another profile).
   */
  token: string;
  /** When its last request came or was answered. */
  lastUsed: number;
  /** Its requests (but GET streams) not yet answered: the idle sweep leaves it open while any is. */
  serving: number;
}

export async function serveHttp(ctx: Context, o: Options, limits: Limits = LIMITS): Promise<number> {
  if (ctx.dryRun) {
    throw new UsageError(
      "assess mcp does not take --dry-run",
      "Bulk write tools answer with a plan first and send only when called again with its token.",
    );
  }
  if (o.allowWrites !== undefined) {
    throw new UsageError(
      "assess mcp --http takes no --allow-writes: each token says what its sessions may write",
      "Make a token with `assess mcp token create <name> --allow-writes <groups>`.",
    );
  }
  const host = o.host ?? "127.0.0.1";
  const loopback = isLoopback(host);
  const tokens = readTokens(ctx.io.env);

  const sessions = new Map<string, Session>();
  /** The contexts of the tokens' profiles, made once each; `ctx` for the server's own. */
  const contexts = new Map<string, Context>();
  const contextOf = (profile: string | undefined): Context => {
    if (profile === undefined || profile === ctx.profileName) return ctx;
    let made = contexts.get(profile);
    if (!made) {
      made = new Context(ctx.io, ctx.signal, ctx.checkWorker, ctx.stopNow);
      made.flags = { ...ctx.flags, profile };
      contexts.set(profile, made);
    }
    return made;
  };

  /** Closes the sessions unused for idleMs and serving no request. */
  const expireIdle = () => {
    const now = limits.now();
    for (const [id, session] of sessions) {
      if (session.serving === 0 && now - session.lastUsed > limits.idleMs) {
        sessions.delete(id);
        session.server.close().catch(() => {});
      }
    }
  };

  let port = o.port;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${PATH}`);
    const hosts = [`${host}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
    if (loopback && !hosts.includes(req.headers.host ?? "")) {
      return refuse(
        res,
        403,
        `Host ${req.headers.host ?? "(none)"} is not the address this server listens on`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !loopbackOrigin(origin)) {
      return refuse(
        res,
        403,
        `Origin ${origin} may not call this server: only pages of a loopback origin may`,
      );
    }
    const token = authorized(req);
    if (!token) {
      res.setHeader(
        "WWW-Authenticate",
        `Bearer realm="assess mcp"${req.headers.authorization ? ', error="invalid_token"' : ""}`,
      );
      return refuse(res, 401, "A valid bearer token is needed: `assess mcp token create <name>` makes one");
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readBody(req);
      if (read === "too large") {
        res.setHeader("Connection", "close");
        return refuse(res, 413, `A request body may be ${MAX_MESSAGE_BYTES / (1024 * 1024)} MiB at most`);
      }
      try {
        body = JSON.parse(read.toString("utf8"));
      } catch {
        return refuse(res, 400, "The body is not JSON", -32700);
      }
    }
    expireIdle();
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = sessions.get(id);
      // Another token's session is as unknown as one that expired: the client initializes again.
      if (!session || session.token !== token.hash)
        return refuse(res, 404, "No such session: initialize again");
      session.lastUsed = limits.now();
      if (req.method !== "GET") {
        session.serving++;
        res.once("close", () => {
          session.serving--;
          session.lastUsed = limits.now();
        });
      }
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return refuse(
        res,
        400,
        "No session: a session starts with an initialize request, without mcp-session-id",
      );
    }
    const own = [...sessions].filter(([, session]) => session.token === token.hash);
    if (own.length >= limits.maxSessionsPerToken) {
      const [id, oldest] = own.reduce((a, b) => (b[1].lastUsed < a[1].lastUsed ? b : a));
      sessions.delete(id);
      await oldest.server.close().catch(() => {});
    }
    if (sessions.size >= limits.maxSessions) {
      res.setHeader("Retry-After", "60");
      return refuse(
        res,
        503,
        `${limits.maxSessions} sessions are open, the most this server holds: try again later`,
      );
    }
    await open(token, req, res, body);
  };

  /** A new session for `token`: its own server, with its write groups, profile and name. */
  const open = async (token: StoredToken, req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const { env, apiKey } = await toolEnv(contextOf(token.profile));
    const { server } = buildServer({
      env: env && { ...env, actor: token.name },
      allowed: new Set(token.writes.filter((group) => WRITE_GROUPS.includes(group))),
      apiKey,
      lockdown: o.lockdown === true,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, token: token.hash, lastUsed: limits.now(), serving: 0 });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  /** The stored token the request's Authorization header carries. */
  const authorized = (req: IncomingMessage): StoredToken | undefined => {
    const match = /^Bearer ([\x21-\x7e]{1,200})$/i.exec(req.headers.authorization ?? "");
    return match ? findToken(readTokens(ctx.io.env), match[1]!) : undefined;
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      ctx.warn(`mcp: ${(error as Error).message}`);
      if (!res.headersSent) refuse(res, 500, "The server failed on this request");
      else res.end();
    });
  });
  http.requestTimeout = 0; // An SSE stream stays open as long as its session.
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error) => reject(listenError(host, o.port, error)));
    http.listen(o.port, host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const expire = setInterval(expireIdle, 60_000);
  expire.unref();

  const shown = host.includes(":") ? `[${host}]` : host;
  ctx.info(`assess mcp ${VERSION}: Streamable HTTP at http://${shown}:${port}${PATH}`);
  if (!loopback) {
    ctx.warn(
      `listening on ${host}, not loopback: anyone who reaches it needs only a token, and it speaks plain HTTP. TLS belongs to a reverse proxy in front of it (bind it to 127.0.0.1 behind one)`,
    );
  }
  if (tokens.length === 0) {
    ctx.warn("No tokens yet: every request is refused until `assess mcp token create <name>` makes one");
  } else {
    ctx.info(
      `Tokens: ${tokens.map((t) => t.name).join(", ")} (\`assess mcp token list\` shows what each may do)`,
    );
  }
  ctx.info("Press Ctrl-C to stop.");

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  clearInterval(expire);
  await Promise.allSettled([...sessions.values()].map((session) => session.server.close()));
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  ctx.info("assess mcp stopped.");
  return 0;
}

/** Whether `name` is this machine: localhost, ::1, or an address of 127/8 (not a domain that starts 127.). */
function isLoopback(name: string): boolean {
  return LOOPBACK.has(name) || (isIPv4(name) && name.startsWith("127."));
}

/** Whether a browser's Origin is a page of this machine (http(s)://localhost, 127.x, [::1], any port). */
function loopbackOrigin(origin: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === "http:" || protocol === "https:") && isLoopback(hostname);
  } catch {
    return false;
  }
}

/** The body, or "too large" past MAX_MESSAGE_BYTES (read no further). */
async function readBody(req: IncomingMessage): Promise<Buffer | "too large"> {
  if (Number(req.headers["content-length"] ?? 0) > MAX_MESSAGE_BYTES) return "too large";
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_MESSAGE_BYTES) return "too large";
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** A refusal as JSON-RPC error, id null (its request was not read). */
function refuse(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}
