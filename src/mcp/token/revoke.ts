import { arg } from "../../commands/shared/flags.js";
import { verb } from "../../commands/shared/verb.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { revokeToken } from "../tokens.js";

export default verb({
  summary: "Revoke a token of `assess mcp --http`: a running server refuses it from its next request",
  args: [arg.text("<name>", "the token's name, as `assess mcp token list` shows it")],
  examples: ["assess mcp token revoke alice"],
  run: revoke,
});

async function revoke(ctx: Context, _o: unknown, [name]: [string]) {
  if (!revokeToken(ctx.io.env, name)) {
    throw new UsageError(
      `No token is named "${name}"; nothing was changed`,
      "`assess mcp token list` lists them.",
    );
  }
  ctx.success(`Revoked the token "${name}": its sessions get 401 from their next request`);
  return 0;
}
