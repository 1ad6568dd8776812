import { writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { checkValue, configKey, shown } from "./keys.js";

export async function run(ctx: Context, _o: unknown, [name, value]: string[]) {
  const key = configKey(name);
  const checked = checkValue(key, value ?? "", ctx.flags.allowHttp);
  if (key === "api-key")
    ctx.warn("`assess auth login` verifies a key before storing it; `config set api-key` does not.");
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: checked });
  ctx.success(`${key} = ${shown(key, checked)} in profile "${ctx.profileName}"`);
  return 0;
}
