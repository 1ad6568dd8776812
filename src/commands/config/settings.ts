/** What the config verbs share: a setting's name checked, its value checked, and shown without secrets. */
import { checkBaseUrl, type Effective, numberSetting } from "../../config/resolve.js";
import { CONFIG_KEYS, type ConfigKey } from "../../config/store.js";
import { UsageError } from "../../errors.js";
import { FORMATS } from "../../output/format.js";
import { redactKey, redactUrl } from "../../redact.js";

export function configKey(value: string | undefined): ConfigKey {
  if (value && (CONFIG_KEYS as readonly string[]).includes(value)) return value as ConfigKey;
  throw new UsageError(`Unknown setting "${value}"`, `Settings are: ${CONFIG_KEYS.join(", ")}`);
}

/** Values are checked when set, so a bad one never waits in the file for the next command to trip on. */
export function checkValue(key: ConfigKey, value: string, allowHttp?: boolean): string {
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
export function shown(key: ConfigKey, value: string | undefined): string | undefined {
  if (value === undefined) return value;
  return key === "api-key" ? redactKey(value) : redactUrl(value);
}

export function sourceText({ source, origin }: Effective, profile: string): string {
  if (source === "flag") return `flag ${origin}`;
  if (source === "environment") return `env ${origin}`;
  if (source === "profile") return `profile "${profile}"`;
  return source === "default" ? "default" : "not set";
}
