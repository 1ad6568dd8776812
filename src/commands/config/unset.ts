import { CONFIG_KEYS, writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { configKey } from "./settings.js";

export default verb({
  summary: "Remove one setting from the profile",
  args: [arg.text("<key>", CONFIG_KEYS.join(" | "))],
  examples: ["assess config unset skills-base-url"],
  run: unsetSetting,
});

async function unsetSetting(ctx: Context, _o: unknown, [name]: [string]) {
  const key = configKey(name);
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: undefined });
  ctx.success(`${key} removed from profile "${ctx.profileName}"`);
  return 0;
}
