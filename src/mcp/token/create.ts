import type { Command } from "commander";
import { arg, flag } from "../../commands/shared/flags.js";
import { verb } from "../../commands/shared/verb.js";
import { checkProfile } from "../../config/resolve.js";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
import { allowedGroups, WRITE_GROUPS } from "../groups.js";
import { createToken, tokensPath } from "../tokens.js";

export default verb({
  summary: "Make a bearer token for `assess mcp --http`: printed once, only its hash is kept",
  args: [arg.text("<name>", "who uses it (a person or a machine): each session's actor")],
  flags: {
    allowWrites: flag.of(
      "[groups]",
      `its sessions also get write tools: all of them, or only those of these comma-separated groups (${WRITE_GROUPS.join(", ")}); without it, read-only`,
      z.union([z.boolean(), z.string()]),
    ),
  },
  notes:
    "With the global --profile, the token's sessions send that profile's key to its URLs; without it, the key of the profile the server runs with. A token cannot be shown again: revoke it and make another.",
  examples: [
    "assess mcp token create alice",
    "assess mcp token create recruiting-bot --allow-writes invite,links",
    "assess --profile prod mcp token create bob --allow-writes --json",
  ],
  run: create,
});

async function create(
  ctx: Context,
  o: { allowWrites?: boolean | string },
  [name]: [string],
  command: Command,
) {
  // Commander gives a flag after the subcommands to the first command that declares it: `assess mcp`.
  const given = o.allowWrites ?? (command.parent?.parent?.opts().allowWrites as boolean | string | undefined);
  const writes = [...allowedGroups(given)];
  const profile = ctx.flags.profile;
  if (profile !== undefined) checkProfile(ctx.flags, ctx.io.env);
  const { token, stored } = createToken(ctx.io.env, name, writes, profile);
  if (ctx.out.isJson) {
    ctx.out.json({ name, token, allowWrites: stored.writes, profile: stored.profile ?? null });
  } else {
    ctx.out.write(`${token}\n`);
  }
  ctx.success(
    `Made the token "${name}" (${writes.length === 0 ? "read-only" : `writes: ${stored.writes.join(", ")}`}${profile !== undefined ? `, profile ${profile}` : ""}); its hash is in ${tokensPath(ctx.io.env)}`,
  );
  ctx.hint(
    "Give it to its user now: it is not shown again. Their MCP client sends it as `Authorization: Bearer <token>`.",
  );
  return 0;
}
