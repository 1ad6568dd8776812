/**
 * `createClient(options)`: a client configured as the CLI is. Options given here win; the rest comes from the
 * environment (ASSESS_API_KEY, ASSESS_BASE_URL, ASSESS_SKILLS_BASE_URL, ASSESS_PROFILE) and the profile's
 * stored settings, then the built-in defaults: the CLI's precedence, with these options in the place of its
 * flags (config/resolve.ts).
 */
import { ApiClient } from "../api/client.js";
import { Api } from "../api/endpoints.js";
import { resolveSettings } from "../config/resolve.js";
import { AuthError } from "../errors.js";
import { VERSION } from "../version.js";
import { AssessClient } from "./client.js";

export interface CreateClientOptions {
  /** The API key (sent as `x-api-key`); else ASSESS_API_KEY, else the profile's. */
  apiKey?: string;
  /** The assessment service's base URL; else ASSESS_BASE_URL, else the profile's. */
  baseUrl?: string;
  /** The employee skills service's base URL; else ASSESS_SKILLS_BASE_URL, else the profile's. */
  skillsBaseUrl?: string;
  /** Milliseconds one attempt of a request may take (default 30000). */
  timeout?: number;
  /** Retries of a request that failed in a way worth retrying (default 3; 0 to 20). */
  retries?: number;
  /** A profile of the CLI's configuration (`assess auth login --profile NAME`); else ASSESS_PROFILE, else "default". */
  profile?: string;
  /** The environment to read ASSESS_* settings from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Allow a plain http:// base URL that is not this machine (the key travels in a header). */
  allowHttp?: boolean;
  /** One line per request and answer; the key never reaches it. */
  debug?: (line: string) => void;
  /** Told of each retry's wait ("HTTP 503 from …; retrying in 2s"). */
  onRetry?: (message: string) => void;
}

export function createClient(options: CreateClientOptions = {}): AssessClient {
  const env = options.env ?? process.env;
  const settings = resolveSettings(
    {
      profile: options.profile,
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      skillsBaseUrl: options.skillsBaseUrl,
      timeout: options.timeout === undefined ? undefined : String(options.timeout),
      retries: options.retries === undefined ? undefined : String(options.retries),
      allowHttp: options.allowHttp,
    },
    env,
  );
  if (!settings.apiKey) {
    throw new AuthError("No API key configured", {
      suggestion: "Pass apiKey to createClient, set ASSESS_API_KEY, or run `assess auth login`.",
    });
  }
  const client = new ApiClient({
    baseUrl: settings.baseUrl,
    skillsBaseUrl: settings.skillsBaseUrl,
    apiKey: settings.apiKey,
    timeoutMs: settings.timeoutMs,
    retries: settings.retries,
    userAgent: `assess-sdk/${VERSION} node/${process.versions.node}`,
    debug: options.debug,
    warn: options.onRetry ?? (() => undefined),
  });
  return new AssessClient(new Api(client), env);
}
