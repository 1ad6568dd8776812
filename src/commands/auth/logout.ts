import { readProfile, writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";

export async function run(ctx: Context) {
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
