import { UsageError } from "../errors.js";
import { redactUrl } from "../redact.js";
import { type ConfigKey, configPath, listProfiles, type Profile, readProfile } from "./store.js";

const DEFAULTS = {
  baseUrl: "https://api.assess.invalid",
  skillsBaseUrl: "https://skills.assess.invalid",
  timeoutMs: 30_000,
  retries: 3,
};

/** Global options as commander parsed them. */
export interface GlobalFlags {
  profile?: string;
  apiKey?: string;
  baseUrl?: string;
  skillsBaseUrl?: string;
  output?: string;
  json?: boolean;
  fields?: string;
  input?: boolean;
  dryRun?: boolean;
  debug?: boolean;
  timeout?: string;
  retries?: string;
  sandbox?: boolean;
  allowHttp?: boolean;
}

type KeySource = "flag" | "environment" | "profile";

export interface Settings {
  profile: string;
  apiKey?: string;
  apiKeySource?: KeySource;
  baseUrl: string;
  skillsBaseUrl: string;
  output?: string;
  timeoutMs: number;
  retries: number;
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
  source?: KeySource | "default";
  /** The flag or variable it came from: "--base-url", "ASSESS_BASE_URL". */
  origin?: string;
}

/** Every setting as it takes effect, unchecked: `config list` shows them even when one is broken. */
export function effectiveValues(flags: GlobalFlags, env: NodeJS.ProcessEnv): Record<ConfigKey, Effective> {
  const profile: Profile = readProfile(env, profileName(flags, env));
  const setting = (
    key: ConfigKey,
    [given, flag]: [string | undefined, string],
    variable?: string,
    fallback?: number | string,
  ): Effective => {
    const candidates: Effective[] = [
      { value: given, source: "flag", origin: flag },
      ...(variable
        ? [{ value: envValue(env, variable), source: "environment" as const, origin: variable }]
        : []),
      { value: profile[key], source: "profile" },
      ...(fallback === undefined ? [] : [{ value: String(fallback), source: "default" as const }]),
    ];
    // An empty --api-key falls through to the next source; any other empty flag is an error.
    return candidates.find((c) => c.value !== undefined && (key !== "api-key" || c.value !== "")) ?? {};
  };
  return {
    "api-key": setting("api-key", [flags.apiKey, "--api-key"], "ASSESS_API_KEY"),
    "base-url": setting("base-url", [flags.baseUrl, "--base-url"], "ASSESS_BASE_URL", DEFAULTS.baseUrl),
    "skills-base-url": setting(
      "skills-base-url",
      [flags.skillsBaseUrl, "--skills-base-url"],
      "ASSESS_SKILLS_BASE_URL",
      DEFAULTS.skillsBaseUrl,
    ),
    output: setting("output", flags.json ? ["json", "--json"] : [flags.output, "--output"]),
    timeout: setting("timeout", [flags.timeout, "--timeout"], undefined, DEFAULTS.timeoutMs),
    retries: setting("retries", [flags.retries, "--retries"], undefined, DEFAULTS.retries),
  };
}

/** A profile named by --profile or ASSESS_PROFILE must exist; `default` may be absent (a first run). */
export function checkProfile(flags: GlobalFlags, env: NodeJS.ProcessEnv): void {
  const name = profileName(flags, env);
  if (name === "default") return;
  const profiles = Object.keys(listProfiles(env));
  if (profiles.includes(name)) return;
  const from = flags.profile !== undefined ? "--profile" : "ASSESS_PROFILE";
  const create = `\`assess auth login --profile ${name}\` creates it.`;
  throw new UsageError(
    `Profile "${name}" (${from}) does not exist`,
    profiles.length > 0
      ? `Profiles in ${configPath(env)}: ${profiles.join(", ")}. ${create}`
      : `No profile is configured yet (${configPath(env)}); ${create}`,
  );
}

/** Precedence: flag > environment > profile > built-in default, resolved once per command. */
export function resolveSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  options: { newProfile?: boolean } = {},
): Settings {
  const values = effectiveValues(flags, env);
  const key = values["api-key"];
  // A missing profile matters only when the key would have come from it.
  const keyGiven = key.source === "flag" || key.source === "environment";
  if (!options.newProfile && !keyGiven) checkProfile(flags, env);
  const settings: Settings = {
    profile: profileName(flags, env),
    apiKey: key.value,
    apiKeySource: key.source === "default" ? undefined : key.source,
    baseUrl: withoutCredentials(values["base-url"].value ?? DEFAULTS.baseUrl),
    skillsBaseUrl: withoutCredentials(values["skills-base-url"].value ?? DEFAULTS.skillsBaseUrl),
    output: values.output.value,
    timeoutMs: positiveInt(values.timeout.value, "--timeout", DEFAULTS.timeoutMs),
    retries: nonNegativeInt(values.retries.value, "--retries", DEFAULTS.retries),
  };
  checkBaseUrl(settings.baseUrl, "--base-url", flags.allowHttp);
  checkBaseUrl(settings.skillsBaseUrl, "--skills-base-url", flags.allowHttp);
  return settings;
}

/** As `config set timeout` allows: beyond an hour is a typo (and past 2^31 ms node's timers fire at once). */
const MAX_TIMEOUT_MS = 3_600_000;

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > MAX_TIMEOUT_MS)
    throw new UsageError(
      `${name} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got "${value}"`,
    );
  return n;
}

function nonNegativeInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 20)
    throw new UsageError(`${name} must be a whole number from 0 to 20, got "${value}"`);
  return n;
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
