import { checkProfile, type Effective, effectiveValues } from "../../config/resolve.js";
import { CONFIG_KEYS } from "../../config/store.js";
import type { Context } from "../../context.js";
import { shown } from "./keys.js";

/**
 * Each setting as a command would use it, and where it comes from: a flag, a variable (ASSESS_BASE_URL set in
 * the shell beats the profile), the profile, or the built-in default. The key is shown as `****1234`.
 */
export async function run(ctx: Context): Promise<number> {
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

function sourceText(setting: Effective, profile: string): string {
  switch (setting.source) {
    case "flag":
      return `flag ${setting.origin}`;
    case "environment":
      return `env ${setting.origin}`;
    case "profile":
      return `profile "${profile}"`;
    case "default":
      return "default";
    default:
      return "not set";
  }
}
