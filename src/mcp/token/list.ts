import { verb } from "../../commands/shared/verb.js";
import type { Context } from "../../context.js";
import { readTokens } from "../tokens.js";

export default verb({
  summary: "List the tokens of `assess mcp --http`: name, write groups, profile, when made (never the token)",
  examples: ["assess mcp token list", "assess mcp token list --json"],
  run: list,
});

async function list(ctx: Context) {
  const rows = readTokens(ctx.io.env).map((t) => ({
    name: t.name,
    allowWrites: t.writes,
    profile: t.profile ?? null,
    created: t.created,
  }));
  if (ctx.out.isJson) {
    ctx.out.json(rows);
    return 0;
  }
  if (rows.length === 0) {
    ctx.info("No tokens yet: `assess mcp token create <name>` makes one.");
    return 0;
  }
  await ctx.out.list(
    rows.map((r) => ({
      ...r,
      allowWrites: r.allowWrites.length > 0 ? r.allowWrites.join(",") : "read-only",
      profile: r.profile ?? "(the server's)",
    })),
    [
      { key: "name", header: "NAME" },
      { key: "allowWrites", header: "WRITES" },
      { key: "profile", header: "PROFILE" },
      { key: "created", header: "CREATED" },
    ],
  );
  return 0;
}
