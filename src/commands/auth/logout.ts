import { readProfile, writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { verb } from "../shared/verb.js";

export default verb({
  summary: "Remove the stored API key from the profile",
  examples: ["assess auth logout --profile staging"],
  run: logOut,
});

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
