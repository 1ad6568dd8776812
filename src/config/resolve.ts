import { UsageError } from "../errors.js";
import { parseIntInRange } from "../parse/numbers.js";
import { redactUrl } from "../redact.js";
import { CONFIG_KEYS, type ConfigKey, configPath, listProfiles, readProfile } from "./store.js";

/** Where a setting may come from besides its flag (`--<key>`) and the profile: a variable, a built-in default. */
const SOURCES: Record<ConfigKey, { variable?: string; fallback?: string }> = {
  "api-key": { variable: "ASSESS_API_KEY" },
  "base-url": { variable: "ASSESS_BASE_URL", fallback: "https://api.assess.invalid" },
  "skills-base-url": { variable: "ASSESS_SKILLS_BASE_URL", fallback: "https://skills.assess.invalid" },
  output: {},
  timeout: { fallback: "30000" },
  retries: { fallback: "3" },
};

/** Global options as commander parsed them: those that take a value, and the switches. */
export type GlobalFlags = Partial<Record<ValueFlag, string> & Record<Switch, boolean>>;
type ValueFlag =
  | "profile"
  | "apiKey"
  | "baseUrl"
  | "skillsBaseUrl"
  | "output"
  | "fields"
  | "timeout"
  | "retries";
type Switch = "json" | "input" | "dryRun" | "debug" | "sandbox" | "allowHttp";

/** Whether the environment says CI (`CI` set, and not empty, `false` or `0`): no prompts, no bars, actor `ci`. */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

/** An ASSESS_* variable's value; an empty one (as a CI template leaves an unset secret) counts as unset. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === "" ? undefined : value;
}

export function profileName(flags: GlobalFlags, env: NodeJS.ProcessEnv): string {
  return flags.profile ?? envValue(env, "ASSESS_PROFILE") ?? "default";
}

/** One setting as it takes effect, and where it came from (`source` undefined: set nowhere). */
export interface Effective {
  value?: string;
  source?: "flag" | "environment" | "profile" | "default";
  /** The flag or variable it came from: "--base-url", "ASSESS_BASE_URL". */
  origin?: string;
}

/** Every setting as it takes effect, unchecked: `config list` shows them even when one is broken. */
export function effectiveValues(flags: GlobalFlags, env: NodeJS.ProcessEnv): Record<ConfigKey, Effective> {
  const profile = readProfile(env, profileName(flags, env));
  const given: Record<ConfigKey, string | undefined> = {
    "api-key": flags.apiKey,
    "base-url": flags.baseUrl,
    "skills-base-url": flags.skillsBaseUrl,
    output: flags.json ? "json" : flags.output,
    timeout: flags.timeout,
    retries: flags.retries,
  };
  const setting = (key: ConfigKey): Effective => {
    const { variable, fallback } = SOURCES[key];
    const candidates: Effective[] = [
      { value: given[key], source: "flag", origin: key === "output" && flags.json ? "--json" : `--${key}` },
      { value: variable && envValue(env, variable), source: "environment", origin: variable },
      { value: profile[key], source: "profile" },
      { value: fallback, source: "default" },
    ];
    // An empty --api-key falls through to the next source; any other empty flag is an error.
    return candidates.find((c) => c.value !== undefined && (key !== "api-key" || c.value !== "")) ?? {};
  };
  return Object.fromEntries(CONFIG_KEYS.map((key) => [key, setting(key)])) as Record<ConfigKey, Effective>;
}

/** A profile named by --profile or ASSESS_PROFILE must exist; `default` may be absent (a first run). */
export function checkProfile(flags: GlobalFlags, env: NodeJS.ProcessEnv): void {
  const missing = missingProfile(flags, env);
  if (missing) throw missing;
}

/** The error of a profile named by --profile or ASSESS_PROFILE that does not exist (`default` may be absent). */
function missingProfile(flags: GlobalFlags, env: NodeJS.ProcessEnv): UsageError | undefined {
  const name = profileName(flags, env);
  if (name === "default") return undefined;
  const profiles = Object.keys(listProfiles(env));
  if (profiles.includes(name)) return undefined;
  const from = flags.profile !== undefined ? "--profile" : "ASSESS_PROFILE";
  const create = `\`assess auth login --profile ${name}\` creates it.`;
  return new UsageError(
    `Profile "${name}" (${from}) does not exist`,
    profiles.length > 0
      ? `Profiles in ${configPath(env)}: ${profiles.join(", ")}. ${create}`
      : `No profile is configured yet (${configPath(env)}); ${create}`,
  );
}

/** What to do about a refused key, by where it came from: a stored key is replaced with `auth login`. */
export function validKeyAdvice(settings: Pick<Settings, "apiKeySource" | "profile">): string {
  return settings.apiKeySource === "environment"
    ? "set ASSESS_API_KEY to a valid key (or unset it and run `assess auth login`)"
    : `store a valid one with \`assess auth login --profile ${settings.profile}\``;
}

export type Settings = ReturnType<typeof resolveSettings>;

/** Precedence: flag > environment > profile > built-in default, resolved once per command. */
export function resolveSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  options: { newProfile?: boolean } = {},
) {
  const values = effectiveValues(flags, env);
  const key = values["api-key"];
  // A missing profile is an error when the key would have come from it; else the command runs, warned.
  const keyGiven = key.source === "flag" || key.source === "environment";
  const missing = options.newProfile ? undefined : missingProfile(flags, env);
  if (missing && !keyGiven) throw missing;
  const settings = {
    profile: profileName(flags, env),
    /** The profile named does not exist, the key being given (a flag or the environment): worth a warning. */
    missingProfile: missing,
    apiKey: key.value,
    apiKeySource: key.source === "default" ? undefined : key.source,
    // These four have a default: a value always.
    baseUrl: withoutCredentials(values["base-url"].value!),
    skillsBaseUrl: withoutCredentials(values["skills-base-url"].value!),
    output: values.output.value,
    timeoutMs: numberSetting("timeout", values.timeout.value!, values.timeout.origin ?? "timeout"),
    retries: numberSetting("retries", values.retries.value!, values.retries.origin ?? "retries"),
  };
  // An error names where the URL was given: the flag, the variable or the profile.
  const givenAt = (key: "base-url" | "skills-base-url") =>
    values[key].origin ?? `${key} of profile "${settings.profile}"`;
  checkBaseUrl(settings.baseUrl, givenAt("base-url"), flags.allowHttp);
  checkBaseUrl(settings.skillsBaseUrl, givenAt("skills-base-url"), flags.allowHttp);
  return settings;
}

/** The number settings' ranges, as flags and `config set` take them. */
const NUMBER_SETTINGS = {
  // A timeout beyond an hour is a typo (and past 2^31 ms node's timers fire at once).
  timeout: { min: 1, max: 3_600_000, unit: " of milliseconds" },
  retries: { min: 0, max: 20, unit: "" },
};

/** A number setting's value, named in the message as `name` (its flag, or its key in `config set`). */
export function numberSetting(key: keyof typeof NUMBER_SETTINGS, value: string, name: string): number {
  const { min, max, unit } = NUMBER_SETTINGS[key];
  return parseIntInRange(value, name, min, max, unit);
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/** A base URL's `user:password@` is never sent, so it is dropped here, where nothing can show it yet. */
function withoutCredentials(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.username === "" && url.password === "") return value;
  url.username = "";
  url.password = "";
  return url.toString();
}

/** The key travels in a header: plain http is allowed only to this machine unless the user insists. */
export function checkBaseUrl(given: string, name: string, allowHttp = false): void {
  const value = redactUrl(given);
  if (!URL.canParse(given))
    throw new UsageError(
      `${name} "${value}" is not a URL`,
      "Give a full URL such as https://api.example.com",
    );
  const url = new URL(given);
  if (url.protocol === "https:") return;
  if (url.protocol !== "http:") throw new UsageError(`${name} must be an https:// URL, got "${value}"`);
  if (!LOOPBACK.test(url.hostname) && !allowHttp) {
    throw new UsageError(
      `Refusing to send your API key over plain http to ${url.host} (${name})`,
      "Use https://, or pass --allow-http if you really mean it.",
    );
  }
}
