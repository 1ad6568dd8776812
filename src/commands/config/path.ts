import { configPath } from "../../config/store.js";
import type { Context } from "../../context.js";

export async function run(ctx: Context) {
  ctx.out.write(`${configPath(ctx.io.env)}\n`);
  return 0;
}
