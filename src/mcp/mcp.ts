/**
 * `assess mcp`: the service's operations as tools of a Model Context Protocol server on stdin/stdout. Its
 * module (serve.ts, with the MCP SDK) is a chunk of its own, loaded only when the server runs.
 */
import { flag } from "../commands/shared/flags.js";
import { verb } from "../commands/shared/verb.js";
import * as z from "../parse/zod.js";
import { WRITE_GROUPS } from "./groups.js";

export default verb({
  summary:
    "Serve the operations to AI assistants over stdio (Model Context Protocol): read-only unless --allow-writes",
  flags: {
    allowWrites: flag.of(
      "[groups]",
      `also offer write tools: all of them, or only those of these comma-separated groups (${WRITE_GROUPS.join(", ")}); bulk writes still need a plan's token`,
      z.union([z.boolean(), z.string()]),
    ),
    lockdown: flag.bool(
      "refuse writes once a session has read the service's text (see below): against instructions planted in names",
    ),
  },
  examples: [
    "assess mcp",
    "assess --sandbox mcp --allow-writes",
    "assess --profile prod mcp --allow-writes invite,links",
    "assess --sandbox mcp --allow-writes invite --lockdown",
    "npx @modelcontextprotocol/inspector --cli assess --sandbox mcp --method tools/list",
  ],
  notes: [
    "Every tool result that carries the service's text (names, titles, messages others wrote) gives it as a block after a notice that calls it untrusted data, never instructions; structuredContent keeps the exact values.",
    "A write that changes or removes something (cancel, mask, a status, an update) first answers with a preview and a confirmToken (single use, short-lived); it sends only when called again with it.",
    "--lockdown: a session may write only until the service's text first reaches it (any answer, preview, plan, failure in the service's words, or the tests resource); from then on writes are refused, but for confirming a preview or plan given before it, whose arguments were fixed before anything was read. A new session (restarting the server) writes again.",
  ].join("\n"),
  run: async (ctx, o) => (await import("./serve.js")).run(ctx, o),
});
