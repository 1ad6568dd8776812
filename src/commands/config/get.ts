import { CONFIG_KEYS, readProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { configKey, shown } from "./settings.js";

export default verb({
  summary: "Print one setting of the profile",
  args: [arg.text("<key>", CONFIG_KEYS.join(" | "))],
  examples: ["assess config get base-url"],
  run: printSetting,
});

async function printSetting(ctx: Context, _o: unknown, [name]: [string]) {
  const key = configKey(name);
  const value = shown(key, readProfile(ctx.io.env, ctx.profileName)[key]);
  if (value === undefined) {
    ctx.info(`${key} is not set in profile "${ctx.profileName}"`);
    return 1;
  }
  ctx.out.write(`${value}\n`);
  return 0;
}
