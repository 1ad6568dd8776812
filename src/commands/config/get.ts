import { readProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { configKey, shown } from "./keys.js";

export async function run(ctx: Context, _o: unknown, [name]: string[]) {
  const key = configKey(name);
  const value = shown(key, readProfile(ctx.io.env, ctx.profileName)[key]);
  if (value === undefined) {
    ctx.info(`${key} is not set in profile "${ctx.profileName}"`);
    return 1;
  }
  ctx.out.write(`${value}\n`);
  return 0;
}
