import { text } from "node:stream/consumers";
import { writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { AuthError, UsageError } from "../../errors.js";
import * as z from "../../parse/zod.js";
import { redactKey } from "../../redact.js";
import { verifyKey } from "./verify.js";

export const options = z.object({ withKey: z.boolean().optional() });

export async function run(ctx: Context, o: z.infer<typeof options>) {
  if (ctx.io.env.ASSESS_API_KEY) {
    throw new UsageError(
      "ASSESS_API_KEY is set: a stored key would be shadowed by it",
      "Unset ASSESS_API_KEY (`unset ASSESS_API_KEY`) and run `assess auth login` again, or keep using the variable.",
    );
  }
  let key: string;
  if (o.withKey) {
    key = (await text(ctx.io.stdin)).trim();
  } else if (ctx.canPrompt) {
    const { password } = await import("@inquirer/prompts");
    const { promptIo } = await import("../../prompts/io.js");
    key = (
      await password(
        // No mask: a `*` per character would tell onlookers the key's length.
        { message: "API key", validate: (v) => v.trim().length > 0 || "The key is empty" },
        promptIo(ctx),
      )
    ).trim();
  } else {
    throw new UsageError(
      "No terminal to ask for the key",
      "Pipe it in: `printf '%s' \"$KEY\" | assess auth login --with-key`",
    );
  }
  if (!key) throw new UsageError("The key read from stdin is empty");
  if (/\s/.test(key)) throw new UsageError("The key contains white space; check what was pasted or piped");

  const check = await verifyKey(ctx, key);
  if (!check.ok)
    throw new AuthError("The service refused this key; nothing was stored", {
      status: check.status,
      suggestion: "Check the key (copy it again from the service's admin pages) and retry.",
    });
  await writeProfile(ctx.io.env, ctx.profileName, { "api-key": key });
  ctx.success(`Key ${redactKey(key)} verified and stored in profile "${ctx.profileName}"`);
  return 0;
}
