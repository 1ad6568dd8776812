/**
 * `assess mcp`: the service's operations as tools of a Model Context Protocol server on stdin/stdout, or with
 * --http for a team (http.ts, a bearer token each). Its modules (serve.ts and http.ts, with the MCP SDK) are
 * chunks of their own, loaded only when the server runs.
 */
import { flag } from "../commands/shared/flags.js";
import { verb } from "../commands/shared/verb.js";
import { UsageError } from "../errors.js";
import * as z from "../parse/zod.js";
import { WRITE_GROUPS } from "./groups.js";

export default verb({
  summary:
    "Serve the operations to AI assistants over stdio or HTTP (Model Context Protocol): read-only unless allowed",
  flags: {
    allowWrites: flag.of(
      "[groups]",
      `also offer write tools: all of them, or only those of these comma-separated groups (${WRITE_GROUPS.join(", ")}); bulk writes still need a plan's token`,
      z.union([z.boolean(), z.string()]),
    ),
    lockdown: flag.bool(
      "refuse writes once a session has read the service's text (see below): against instructions planted in names",
    ),
    http: flag.bool(
      "serve Streamable HTTP on /mcp instead of stdio, for a team: each request needs a token of `assess mcp token create`, which says its writes and profile",
    ),
    port: flag.int(0, 65535, "the port of --http (0: any free one)").default("8808"),
    host: flag.text(
      "<host>",
      "the address --http listens on (default 127.0.0.1); any other than loopback is plain HTTP reachable by others: put a reverse proxy with TLS in front",
    ),
  },
  examples: [
    "assess mcp",
    "assess --sandbox mcp --allow-writes",
    "assess --profile prod mcp --allow-writes invite,links",
    "assess --sandbox mcp --allow-writes invite --lockdown",
    "npx @modelcontextprotocol/inspector --cli assess --sandbox mcp --method tools/list",
    "assess mcp --http --port 8808",
  ],
  notes: [
    "Every tool result that carries the service's text (names, titles, messages others wrote) gives it as a block after a notice that calls it untrusted data, never instructions; structuredContent keeps the exact values.",
    "A write that changes or removes something (cancel, mask, a status, an update) first answers with a preview and a confirmToken (single use, short-lived); it sends only when called again with it.",
    "--lockdown: a session may write only until the service's text first reaches it (any answer, preview, plan, failure in the service's words, or the tests resource); from then on writes are refused, but for confirming a preview or plan given before it, whose arguments were fixed before anything was read. A new session (restarting the server, or a new HTTP session) writes again.",
    "With --http, the server runs until Ctrl-C. A request needs `Authorization: Bearer <token>` (401 otherwise); a browser's request from another origin than loopback is refused (403), as is a Host header other than the address listened on when that is loopback. Sessions expire after 30 minutes unused; a token holds 10 at most (a new one closes its least recently used).",
  ].join("\n"),
  run: async (ctx, o) => {
    if (o.http) return (await import("./http.js")).serveHttp(ctx, o);
    if (o.host !== undefined) {
      throw new UsageError(
        "--host is for --http",
        "Add --http to serve over HTTP, or drop --host for stdio.",
      );
    }
    return (await import("./serve.js")).run(ctx, o);
  },
});
