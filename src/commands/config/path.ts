import { configPath } from "../../config/store.js";
import type { Handler } from "../shared/kit.js";

const path: Handler = async (ctx) => {
  ctx.out.write(`${configPath(ctx.io.env)}\n`);
  return 0;
};
export default path;
