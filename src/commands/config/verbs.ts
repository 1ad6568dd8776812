/** The verbs of `assess config`: read and change one profile's settings, each checked when it is set. */
import {
  checkBaseUrl,
  checkProfile,
  type Effective,
  effectiveValues,
  numberSetting,
} from "../../config/resolve.js";
import { CONFIG_KEYS, type ConfigKey, configPath, readProfile, writeProfile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { FORMATS } from "../../output/format.js";
import { redactKey, redactUrl } from "../../redact.js";

/** The verbs, as index.ts loads each: `import("./verbs.js").then((m) => m.get)`. */
export const list = { run: listSettings };
export const get = { run: printSetting };
export const set = { run: setSetting };
export const unset = { run: unsetSetting };
export const path = { run: printPath };

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

async function printSetting(ctx: Context, _o: unknown, [name]: string[]) {
  const key = configKey(name);
  const value = shown(key, readProfile(ctx.io.env, ctx.profileName)[key]);
  if (value === undefined) {
    ctx.info(`${key} is not set in profile "${ctx.profileName}"`);
    return 1;
  }
  ctx.out.write(`${value}\n`);
  return 0;
}

async function setSetting(ctx: Context, _o: unknown, [name, value]: string[]) {
  const key = configKey(name);
  const checked = checkValue(key, value ?? "", ctx.flags.allowHttp);
  if (key === "api-key")
    ctx.warn("`assess auth login` verifies a key before storing it; `config set api-key` does not.");
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: checked });
  ctx.success(`${key} = ${shown(key, checked)} in profile "${ctx.profileName}"`);
  return 0;
}

async function unsetSetting(ctx: Context, _o: unknown, [name]: string[]) {
  const key = configKey(name);
  await writeProfile(ctx.io.env, ctx.profileName, { [key]: undefined });
  ctx.success(`${key} removed from profile "${ctx.profileName}"`);
  return 0;
}

async function printPath(ctx: Context) {
  ctx.out.write(`${configPath(ctx.io.env)}\n`);
  return 0;
}

function configKey(value: string | undefined): ConfigKey {
  if (value && (CONFIG_KEYS as readonly string[]).includes(value)) return value as ConfigKey;
  throw new UsageError(`Unknown setting "${value}"`, `Settings are: ${CONFIG_KEYS.join(", ")}`);
}

/** Values are checked when set, so a bad one never waits in the file for the next command to trip on. */
function checkValue(key: ConfigKey, value: string, allowHttp?: boolean): string {
  switch (key) {
    case "base-url":
    case "skills-base-url":
      checkBaseUrl(value, key, allowHttp);
      return value;
    case "output":
      if (!(FORMATS as readonly string[]).includes(value))
        throw new UsageError(`output must be one of ${FORMATS.join(", ")}`);
      return value;
    case "timeout":
    case "retries":
      return String(numberSetting(key, value, key));
    case "api-key":
      if (!value.trim() || /\s/.test(value)) throw new UsageError("api-key must be a single word");
      return value;
  }
}

/** Never the key itself, nor a base URL's password. */
function shown(key: ConfigKey, value: string | undefined): string | undefined {
  if (value === undefined) return value;
  return key === "api-key" ? redactKey(value) : redactUrl(value);
}

function sourceText({ source, origin }: Effective, profile: string): string {
  if (source === "flag") return `flag ${origin}`;
  if (source === "environment") return `env ${origin}`;
  if (source === "profile") return `profile "${profile}"`;
  return source === "default" ? "default" : "not set";
}
