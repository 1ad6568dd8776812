import { writeProfile } from "../../config/store.js";
import type { Handler } from "../shared/kit.js";
import { checkValue, configKey, shown } from "./keys.js";

const set: Handler = async (ctx, [name, value]) => {
  const key = configKey(name);
  const checked = checkValue(key, value ?? "", ctx.flags.allowHttp);
  if (key === "api-key")
    ctx.warn("`assess auth login` verifies a key before storing it; `config set api-key` does not.");
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: checked });
  ctx.success(`${key} = ${shown(key, checked)} in profile "${ctx.profileName}"`);
  return 0;
};
export default set;
