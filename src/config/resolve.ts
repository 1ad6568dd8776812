import { UsageError } from "../errors.js";
import { type Profile, readProfile } from "./store.js";

export const DEFAULTS = {
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

export type KeySource = "flag" | "environment" | "profile";

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

export function profileName(flags: GlobalFlags, env: NodeJS.ProcessEnv): string {
  return flags.profile ?? env.ASSESS_PROFILE ?? "default";
}

/** Precedence: flag > environment > profile > built-in default, resolved once per command. */
export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv): Settings {
  const name = profileName(flags, env);
  const profile: Profile = readProfile(env, name);
  const [apiKey, apiKeySource] = firstOf<KeySource>([
    [flags.apiKey, "flag"],
    [env.ASSESS_API_KEY, "environment"],
    [profile["api-key"], "profile"],
  ]);
  const settings: Settings = {
    profile: name,
    apiKey,
    apiKeySource,
    baseUrl: flags.baseUrl ?? env.ASSESS_BASE_URL ?? profile["base-url"] ?? DEFAULTS.baseUrl,
    skillsBaseUrl:
      flags.skillsBaseUrl ??
      env.ASSESS_SKILLS_BASE_URL ??
      profile["skills-base-url"] ??
      DEFAULTS.skillsBaseUrl,
    output: flags.json ? "json" : (flags.output ?? profile.output),
    timeoutMs: positiveInt(flags.timeout ?? profile.timeout, "--timeout", DEFAULTS.timeoutMs),
    retries: nonNegativeInt(flags.retries ?? profile.retries, "--retries", DEFAULTS.retries),
  };
  checkBaseUrl(settings.baseUrl, "--base-url", flags.allowHttp);
  checkBaseUrl(settings.skillsBaseUrl, "--skills-base-url", flags.allowHttp);
  return settings;
}

function firstOf<S>(candidates: Array<[string | undefined, S]>): [string | undefined, S | undefined] {
  for (const [value, source] of candidates) if (value) return [value, source];
  return [undefined, undefined];
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

/** The key travels in a header: plain http is allowed only to this machine unless the user insists. */
export function checkBaseUrl(value: string, name: string, allowHttp = false): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `${name} "${value}" is not a URL`,
      "Give a full URL such as https://api.example.com",
    );
  }
  if (url.protocol === "https:") return;
  if (url.protocol !== "http:") throw new UsageError(`${name} must be an https:// URL, got "${value}"`);
  if (!LOOPBACK.test(url.hostname) && !allowHttp) {
    throw new UsageError(
      `Refusing to send your API key over plain http to ${url.host} (${name})`,
      "Use https://, or pass --allow-http if you really mean it.",
    );
  }
}
