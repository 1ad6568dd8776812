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
  },
  examples: [
    "assess mcp",
    "assess --sandbox mcp --allow-writes",
    "assess --profile prod mcp --allow-writes invite,links",
    "npx @modelcontextprotocol/inspector --cli assess --sandbox mcp --method tools/list",
  ],
  run: async (ctx, o) => (await import("./serve.js")).run(ctx, o),
});
