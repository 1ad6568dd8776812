import { CONFIG_KEYS, readProfile } from "../../config/store.js";
import type { Handler } from "../shared/kit.js";
import { shown } from "./keys.js";

const list: Handler = async (ctx) => {
  const profile = readProfile(ctx.io.env, ctx.profileName);
  const rows = CONFIG_KEYS.map((key) => ({
    profile: ctx.profileName,
    key,
    value: shown(key, profile[key]) ?? null,
  }));
  if (ctx.out.isJson) {
    ctx.out.json(Object.fromEntries(rows.map((r) => [r.key, r.value])));
    return 0;
  }
  await ctx.out.list(rows, [
    { key: "key", header: "KEY" },
    { key: "value", header: "VALUE" },
    { key: "profile", header: "PROFILE" },
  ]);
  return 0;
};
export default list;
