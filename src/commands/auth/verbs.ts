/** The verbs of `assess auth`: a profile's key, stored only once one call with it has succeeded. */
import { text } from "node:stream/consumers";
import { Api } from "../../api/endpoints.js";
import { readProfile, writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { ApiError, AuthError, UsageError } from "../../errors.js";
import type { Column } from "../../output/output.js";
import * as z from "../../parse/zod.js";
import { redactKey } from "../../redact.js";
import { Client } from "../../sdk/client.js";

const loginOptions = z.object({ withKey: z.boolean().optional() });

/** The verbs, as index.ts loads each: `import("./verbs.js").then((m) => m.login)`. */
export const login = { options: loginOptions, run: logIn };
export const status = { run: showStatus };
export const logout = { run: logOut };

async function logIn(ctx: Context, o: z.infer<typeof loginOptions>) {
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
  const key = (o.withKey ? await text(ctx.io.stdin) : await askKey(ctx)).trim();
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

/** The key typed at a hidden prompt; no mask, as a `*` per character would tell onlookers the key's length. */
async function askKey(ctx: Context): Promise<string> {
  const { password } = await import("@inquirer/prompts");
  const { promptIo } = await import("../../prompts/io.js");
  const validate = (v: string) => v.trim().length > 0 || "The key is empty";
  return password({ message: "API key", validate }, promptIo(ctx));
}

const STATUS_COLUMNS: Column[] = [
  { key: "profile", header: "PROFILE" },
  { key: "key", header: "KEY" },
  { key: "keySource", header: "KEY FROM" },
  { key: "baseUrl", header: "BASE URL" },
  { key: "skillsBaseUrl", header: "SKILLS BASE URL" },
  { key: "valid", header: "VALID" },
];

async function showStatus(ctx: Context) {
  const s = ctx.settings;
  // With --sandbox: the embedded sandbox's URLs, and its demo account's key unless --api-key gives one.
  const sandbox = ctx.flags.sandbox ? (await ctx.apiClient()).options : undefined;
  const apiKey = sandbox?.apiKey ?? s.apiKey;
  if (!apiKey) {
    throw new AuthError(`No API key for profile "${s.profile}"`, {
      suggestion: "Run `assess auth login`, or set ASSESS_API_KEY.",
    });
  }
  const check = await verifyKey(ctx, apiKey);
  const report = {
    profile: s.profile,
    key: redactKey(apiKey),
    keySource: sandbox && s.apiKeySource !== "flag" ? "sandbox" : s.apiKeySource,
    baseUrl: sandbox?.baseUrl ?? s.baseUrl,
    skillsBaseUrl: sandbox?.skillsBaseUrl ?? s.skillsBaseUrl,
    valid: check.ok,
  };
  await ctx.out.record(report, STATUS_COLUMNS);
  if (!check.ok)
    throw new AuthError(`The service refused the key ${report.key} (HTTP ${check.status})`, {
      status: check.status,
      suggestion: "Run `assess auth login` with a valid key.",
    });
  ctx.success(`Key ${report.key} (from ${report.keySource}) is accepted by ${report.baseUrl}`);
  return 0;
}

async function logOut(ctx: Context) {
  const profile = ctx.profileName;
  if (!readProfile(ctx.io.env, profile)["api-key"]) {
    ctx.info(`No key stored in profile "${profile}"; nothing to do.`);
    return 0;
  }
  await writeProfile(ctx.io.env, profile, { "api-key": undefined });
  ctx.success(`Removed the key from profile "${profile}"`);
  if (ctx.io.env.ASSESS_API_KEY)
    ctx.warn("ASSESS_API_KEY is still set in your environment and will keep being used.");
  return 0;
}

/** One cheap call (the first test) tells whether a key is accepted. Network failures propagate. */
async function verifyKey(ctx: Context, key: string): Promise<{ ok: boolean; status?: number }> {
  const client = await ctx.clientFor(key);
  try {
    await new Client(new Api(client), ctx.io.env).tests.list({ page: 1, pageSize: 1 });
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403))
      return { ok: false, status: error.status };
    throw error;
  } finally {
    await client.close();
  }
}
