import { writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { configKey } from "./keys.js";

export async function run(ctx: Context, _o: unknown, [name]: string[]) {
  const key = configKey(name);
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: undefined });
  ctx.success(`${key} removed from profile "${ctx.profileName}"`);
  return 0;
}
