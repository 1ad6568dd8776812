/**
 * `createClient(options)`: a client configured as the CLI is (config/resolve.ts), these options in the place of
 * its flags, then the environment (ASSESS_*), the profile's stored settings and the built-in defaults.
 */
import { Api } from "../api/endpoints.js";
import { Transport } from "../api/transport.js";
import { AuditLog } from "../config/audit.js";
import { resolveSettings } from "../config/resolve.js";
import { configDir } from "../config/store.js";
import { keepBook } from "../core/invitation-book.js";
import { AuthError, UsageError } from "../errors.js";
import { zodIssueLines } from "../parse/issues.js";
import { VERSION } from "../version.js";
import { Client } from "./client.js";
import type { AssessClient, CreateClientOptions } from "./types.js";

export function createClient(options: CreateClientOptions = {}): AssessClient {
  const env: NodeJS.ProcessEnv = options.env ?? process.env;
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
  const client = new Transport({
    baseUrl: settings.baseUrl,
    skillsBaseUrl: settings.skillsBaseUrl,
    apiKey: settings.apiKey,
    timeoutMs: settings.timeoutMs,
    retries: settings.retries,
    userAgent: `assess-sdk/${VERSION} node/${process.versions.node}`,
    debug: options.debug,
    warn: options.onRetry ?? (() => undefined),
  });
  // Writes are recorded in the config folder's audit log, as the CLI's are, unless `audit: false`.
  const audit =
    options.audit === false
      ? undefined
      : new AuditLog(configDir(env), {
          surface: "sdk",
          env,
          profile: settings.profile,
        });
  const api = new Api(client, audit);
  // Every invitation the client sends is booked, as the CLI's are (`assess invite status` counts them).
  const book = keepBook(api, { env, profile: settings.profile, service: settings.baseUrl });
  return new Client(withUsageErrors(api), env, book);
}

/** A request body that breaks its schema is refused before it is sent with zod's error: for code, an AssessUsageError. */
function withUsageErrors(api: Api): Api {
  const translate = (error: unknown): never => {
    const lines = zodIssueLines(error);
    if (lines) throw new UsageError(`Invalid request: ${lines.join("; ")}`, undefined, lines);
    throw error;
  };
  return new Proxy(api, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || key === "constructor") return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(target, args);
          return result instanceof Promise ? result.catch(translate) : result;
        } catch (error) {
          return translate(error);
        }
      };
    },
  });
}
