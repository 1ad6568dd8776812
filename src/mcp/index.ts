import type { Command } from "commander";
import { examples, type GroupSetup } from "../commands/shared/verbs.js";
import { WRITE_GROUPS } from "./groups.js";

/**
 * `assess mcp`: the service's operations as tools of a Model Context Protocol server on stdin/stdout. Its
 * module (serve.ts, with the MCP SDK) is a chunk of its own, loaded only by this command.
 */
export function register(group: Command, { lazy }: GroupSetup): void {
  examples(
    group
      .description(
        "Serve the operations to AI assistants over stdio (Model Context Protocol): read-only unless --allow-writes",
      )
      .option(
        "--allow-writes [groups]",
        `also offer write tools: all of them, or only those of these comma-separated groups (${WRITE_GROUPS.join(", ")}); bulk writes still need a plan's token`,
      )
      .action(lazy(() => import("./serve.js"))),
    [
      "assess mcp",
      "assess --sandbox mcp --allow-writes",
      "assess --profile prod mcp --allow-writes invite,links",
      "npx @modelcontextprotocol/inspector --cli assess --sandbox mcp --method tools/list",
    ],
  );
}
