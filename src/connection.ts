/**
 * Where a command's requests go, and the one client that sends them (`ctx.client()`): the settings' base URLs
 * and key, or with --sandbox an embedded sandbox; every client honours --timeout, --retries, --debug and
 * --dry-run. Made once per command by its context, which it tells what to say through `ConnectionHost`.
 */
import { chmodSync } from "node:fs";
import { join } from "node:path";
import type { ApiName, DryRunRequest } from "./api/transport.js";
import type { Settings } from "./config/resolve.js";
import { configDir } from "./config/store.js";
import { AuthError } from "./errors.js";
import type { Client } from "./sdk/client.js";
import { VERSION } from "./version.js";

/** What a connection needs of its command: settings, whether --sandbox and --dry-run apply, and messages. */
export interface ConnectionHost {
  readonly settings: Settings;
  readonly sandbox: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly debug: ((line: string) => void) | undefined;
  /** `--dry-run`: told each request instead of its being sent; returns whether to send it after all. */
  readonly dryRun: ((request: DryRunRequest, readOnly: boolean) => boolean) | undefined;
  info(message: string): void;
  warn(message: string): void;
}

export class Connection {
  private shared?: Client;
  private sandbox?: { url: string; skillsUrl: string; close(): Promise<void> };

  constructor(private readonly host: ConnectionHost) {}

  /**
   * The SDK's client (`client.tests.list`), shared by every call of the command; with `apiKey` (a key being
   * verified) a client of its own sending that key instead.
   */
  async client(apiKey?: string): Promise<Client> {
    if (apiKey === undefined && this.shared) return this.shared;
    const { settings } = this.host;
    const target = await this.target();
    const key = apiKey ?? target.apiKey;
    if (!key) {
      throw new AuthError("No API key configured", {
        suggestion:
          "Run `assess auth login`, or set ASSESS_API_KEY (try `--sandbox` to explore without an account).",
      });
    }
    const [{ Transport }, { Api }, { Client }, { keepBook }, { AuditLog }] = await Promise.all([
      import("./api/transport.js"),
      import("./api/endpoints.js"),
      import("./sdk/client.js"),
      import("./core/invitation-book.js"),
      import("./config/audit.js"),
    ]);
    const transport = new Transport({
      baseUrl: target.baseUrl,
      skillsBaseUrl: target.skillsBaseUrl,
      apiKey: key,
      timeoutMs: settings.timeoutMs,
      retries: settings.retries,
      userAgent: `assess/${VERSION} node/${process.versions.node}`,
      debug: this.host.debug,
      warn: (line) => this.host.warn(line),
      dryRun: this.host.dryRun,
    });
    // Every write is recorded in the config folder's audit log; `assess mcp` says who acts per session.
    const { env } = this.host;
    const audit = new AuditLog(configDir(env), {
      surface: "cli",
      env,
      // The embedded sandbox's writes are no account's: not to be taken for the profile's.
      profile: this.host.sandbox ? "sandbox" : settings.profile,
    });
    const api = new Api(transport, audit);
    // Every invitation this command sends is booked (`invite status`), per profile and service.
    const client = new Client(api, env, keepBook(api, this.bookPlace()));
    if (apiKey === undefined) this.shared ??= client;
    return apiKey === undefined ? this.shared! : client;
  }

  /** The shared client, if one was made: what `unreadAnswer` asks. */
  get made(): Client | undefined {
    return this.shared;
  }

  /**
   * Where requests go and with which key: the settings, or with --sandbox the embedded sandbox's URLs and its
   * demo account's key (only an explicit `--api-key` picks another account; a real key would fail there).
   */
  async target() {
    const { settings } = this.host;
    const sandbox = this.host.sandbox ? await this.embeddedSandbox() : undefined;
    const demo = sandbox !== undefined && settings.apiKeySource !== "flag";
    return {
      apiKey: demo ? (await import("./sandbox/index.js")).SANDBOX_KEYS.acme : settings.apiKey,
      keySource: demo ? "sandbox" : settings.apiKeySource,
      baseUrl: sandbox?.url ?? settings.baseUrl,
      skillsBaseUrl: sandbox?.skillsUrl ?? settings.skillsBaseUrl,
    };
  }

  /** The assessment base URL requests go to: the embedded sandbox's with `--sandbox`. */
  async assessBaseUrl(): Promise<string> {
    return this.host.sandbox ? (await this.embeddedSandbox()).url : this.host.settings.baseUrl;
  }

  /** Where requests go, as ledgers and watch states name it: the embedded sandbox is one place whatever its port. */
  targetBaseUrl(api: ApiName): string {
    if (this.host.sandbox) return `sandbox:embedded/${api}`;
    return api === "skills" ? this.host.settings.skillsBaseUrl : this.host.settings.baseUrl;
  }

  /** The invitation book of this command's profile and service (core/invitation-book.ts). */
  bookPlace() {
    return { env: this.host.env, profile: this.host.settings.profile, service: this.targetBaseUrl("assess") };
  }

  private async embeddedSandbox(): Promise<NonNullable<Connection["sandbox"]>> {
    if (this.sandbox) return this.sandbox;
    const [{ startSandbox }, { ensurePrivateDir }] = await Promise.all([
      import("./sandbox/index.js"),
      import("./config/private.js"),
    ]);
    const { env } = this.host;
    // A persistent demo account, private like the config folder (an older one was made 0755).
    const folder = join(configDir(env), "sandbox");
    ensurePrivateDir(configDir(env), folder, "the embedded sandbox's demo account");
    chmodSync(folder, 0o700);
    this.sandbox = await startSandbox({ stateFile: join(folder, "state.json") });
    this.host.info(
      `Using the embedded sandbox (demo account "acme", kept in ${configDir(env)}; nothing leaves this machine)`,
    );
    return this.sandbox;
  }

  async close(): Promise<void> {
    await this.shared?.close();
    await this.sandbox?.close();
  }
}
