import { writeProfile } from "../../config/store.js";
import type { Handler } from "../shared/kit.js";
import { configKey } from "./keys.js";

const unset: Handler = async (ctx, [name]) => {
  const key = configKey(name);
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: undefined });
  ctx.success(`${key} removed from profile "${ctx.profileName}"`);
  return 0;
};
export default unset;
