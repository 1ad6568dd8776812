import { CONFIG_KEYS, writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { checkValue, configKey, shown } from "./settings.js";

export default verb({
  summary: "Change one setting of the profile (file mode 0600)",
  args: [arg.text("<key>", CONFIG_KEYS.join(" | ")), arg.text("<value>", "the new value")],
  examples: [
    "assess config set base-url https://api.example.com/assess",
    "assess config set output json --profile ci",
  ],
  run: setSetting,
});

async function setSetting(ctx: Context, _o: unknown, [name, value]: [string, string]) {
  const key = configKey(name);
  const checked = checkValue(key, value ?? "", ctx.flags.allowHttp);
  if (key === "api-key")
    ctx.warn("`assess auth login` verifies a key before storing it; `config set api-key` does not.");
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: checked });
  ctx.success(`${key} = ${shown(key, checked)} in profile "${ctx.profileName}"`);
  return 0;
}
