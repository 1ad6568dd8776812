import { configPath } from "../../config/store.js";
import type { Context } from "../../context.js";
import { verb } from "../shared/verb.js";

export default verb({
  summary: "Print where the config file lives",
  examples: ["assess config path"],
  run: printPath,
});

async function printPath(ctx: Context) {
  ctx.out.write(`${configPath(ctx.io.env)}\n`);
  return 0;
}
