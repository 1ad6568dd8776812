import { writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { AuthError, UsageError } from "../../errors.js";
import { readText } from "../../files.js";
import { redactKey } from "../../redact.js";
import { flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { checkKey } from "./status.js";

/** A key is some dozens of characters: standard input past this is no key, and is read no further. */
const MAX_KEY_BYTES = 4 * 1024;

const flags = { withKey: flag.bool("read the key from stdin instead of prompting") };

export default verb({
  summary:
    "Ask for the API key (hidden), verify it with one call, and store it in the profile (file mode 0600)",
  flags,
  examples: ["assess auth login", "printf '%s' \"$KEY\" | assess auth login --with-key --profile staging"],
  run: logIn,
});

async function logIn(ctx: Context, o: OptionsOf<typeof flags>) {
  if (ctx.io.env.ASSESS_API_KEY) {
    throw new UsageError(
      "ASSESS_API_KEY is set: a stored key would be shadowed by it",
      "Unset ASSESS_API_KEY (`unset ASSESS_API_KEY`) and run `assess auth login` again, or keep using the variable.",
    );
  }
  if (!o.withKey && !ctx.canPrompt) {
    throw new UsageError(
      "No terminal to ask for the key",
      "Pipe it in: `printf '%s' \"$KEY\" | assess auth login --with-key`",
    );
  }
  const key = (
    o.withKey ? await readText("-", MAX_KEY_BYTES, "an API key", ctx.io.stdin) : await askKey(ctx)
  ).trim();
  if (!key)
    throw new UsageError(
      "The key read from stdin is empty; nothing was stored",
      // In CI the usual cause: the secret's variable is not set in this job (`printf '%s' "$KEY"` printed nothing).
      "Pipe the key in, for example `printf '%s' \"$KEY\" | assess auth login --with-key`, and check that the variable holding it is set; without --with-key, `assess auth login` asks for it on a terminal.",
    );
  if (/\s/.test(key)) throw new UsageError("The key contains white space; check what was pasted or piped");

  const client = await ctx.connection.client(key);
  const check = await checkKey(client).finally(() => client.close());
  if (!check.ok)
    throw new AuthError("The service refused this key; nothing was stored", {
      status: check.status,
      suggestion: "Check the key (copy it again from the service's admin pages) and retry.",
    });
  await writeProfile(ctx.io.env, ctx.profileName, { "api-key": key });
  ctx.success(`Key ${redactKey(key)} verified and stored in profile "${ctx.profileName}"`);
  return 0;
}

/** The key typed at a hidden prompt; no mask, as a `*` per character would tell onlookers the key's length. */
async function askKey(ctx: Context): Promise<string> {
  const { password } = await import("@inquirer/prompts");
  const { promptIo } = await import("../../prompts/io.js");
  const validate = (v: string) => v.trim().length > 0 || "The key is empty";
  return password({ message: "API key", validate }, promptIo(ctx));
}
