import { checkProfile, effectiveValues } from "../../config/resolve.js";
import { CONFIG_KEYS } from "../../config/store.js";
import type { Context } from "../../context.js";
import { verb } from "../shared/verb.js";
import { shown, sourceText } from "./settings.js";

export default verb({
  summary: "Show the settings in effect and where each comes from (the key as ****1234)",
  examples: ["assess config list", "assess config list --profile staging --json"],
  run: listSettings,
});

/** Each setting as a command would use it, and where it comes from: flag, variable, profile or default. */
async function listSettings(ctx: Context) {
  checkProfile(ctx.flags, ctx.io.env);
  const values = effectiveValues(ctx.flags, ctx.io.env);
  const rows = CONFIG_KEYS.map((key) => ({
    key,
    value: shown(key, values[key].value) ?? null,
    source:
      key === "output" && values.output.source === undefined
        ? "default (table on a terminal, tsv when piped)"
        : sourceText(values[key], ctx.profileName),
  }));
  if (ctx.out.isJson) {
    ctx.out.json(Object.fromEntries(rows.map((r) => [r.key, r.value])));
    return 0;
  }
  await ctx.out.list(rows, [
    { key: "key", header: "KEY" },
    { key: "value", header: "VALUE" },
    { key: "source", header: "SOURCE" },
  ]);
  return 0;
}
