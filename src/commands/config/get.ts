import { readProfile } from "../../config/store.js";
import type { Handler } from "../shared/kit.js";
import { configKey, shown } from "./keys.js";

const get: Handler = async (ctx, [name]) => {
  const key = configKey(name);
  const value = shown(key, readProfile(ctx.io.env, ctx.profileName)[key]);
  if (value === undefined) {
    ctx.info(`${key} is not set in profile "${ctx.profileName}"`);
    return 1;
  }
  ctx.out.write(`${value}\n`);
  return 0;
};
export default get;
