import { chmodSync } from "node:fs";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { ApiClient, ApiName, DryRunRequest } from "./api/client.js";
import {
  effectiveValues,
  type GlobalFlags,
  profileName,
  resolveSettings,
  type Settings,
} from "./config/resolve.js";
import { configDir } from "./config/store.js";
import { AuthError } from "./errors.js";
import { escapeControls } from "./escape.js";
import { chooseFormat, useColor } from "./output/format.js";
import { Output } from "./output/output.js";
import { createProgress, isCi, type Progress, StatusLine } from "./output/progress.js";
import { loadStyle, plainStyle, type Style } from "./output/style.js";
import { wrapMessage } from "./output/wrap.js";
import type { Client } from "./sdk/client.js";
import { VERSION } from "./version.js";

export interface Io {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/**
 * What a command needs, resolved lazily and once: settings, output, the API, prompts. One per `main()` call,
 * so tests can run many commands in one process.
 */
export class Context {
  /** The one line progress bars draw on (stderr, terminals only): erased before anything else is written. */
  readonly statusLine: StatusLine;
  flags: GlobalFlags = {};
  /** `auth login --profile new` creates the profile it names; every other command needs it to exist. */
  newProfile = false;
  private settingsCache?: Settings;
  private outputCache?: Output;
  /** Colours for messages on stderr (`stdoutStyle`: for the output), set by loadStyles(). */
  style: Style = plainStyle;
  private stdoutStyle: Style = plainStyle;
  private httpClient?: ApiClient;
  private sdkClient?: Client;
  private sandbox?: { url: string; skillsUrl: string; close(): Promise<void> };
  /** `planWithReads` was called. */
  private planning = false;
  /** While set, --dry-run's requests are kept here for the command's one JSON document, not printed apart. */
  dryRunRequests?: unknown[];

  constructor(
    readonly io: Io,
    readonly signal: AbortSignal,
    /** The built worker script that checks half of a large bulk file (dist/check-worker.cjs). */
    readonly checkWorker?: URL,
    /** Aborted just before the process exits without waiting for a clean stop (a second Ctrl-C). */
    readonly stopNow: AbortSignal = new AbortController().signal,
  ) {
    this.statusLine = new StatusLine(io.stdout, io.stderr, io.env);
  }

  /** A progress bar on the status line, counting `noun` ("rows", "windows", "reports"). */
  progress(noun?: string): Progress {
    return createProgress(this.statusLine, noun);
  }

  /** The profile in use; needs no other setting, so `config` commands work even when one is broken. */
  get profileName(): string {
    return profileName(this.flags, this.io.env);
  }

  get settings(): Settings {
    if (!this.settingsCache) {
      this.settingsCache = resolveSettings(this.flags, this.io.env, { newProfile: this.newProfile });
      const { missingProfile, apiKeySource } = this.settingsCache;
      if (missingProfile) {
        const origin = apiKeySource === "flag" ? "--api-key" : "ASSESS_API_KEY";
        this.warn(
          `${missingProfile.message}; going on with the API key from ${origin} and no profile's settings`,
        );
        this.hint(
          `${missingProfile.suggestion} \`assess config list\` shows each setting in effect and where it comes from.`,
        );
      }
    }
    return this.settingsCache;
  }

  get debugEnabled(): boolean {
    return this.flags.debug === true || this.io.env.ASSESS_DEBUG === "1";
  }

  /** Loads colours for the streams that are terminals; main() calls it once before a command runs. */
  async loadStyles(): Promise<void> {
    [this.stdoutStyle, this.style] = await Promise.all([
      loadStyle(useColor(this.io.stdout.isTTY, this.io.env)),
      loadStyle(useColor(this.io.stderr.isTTY, this.io.env)),
    ]);
  }

  get out(): Output {
    if (!this.outputCache) {
      // Only the output setting: `completion bash` or `help` must not trip on a profile or URL they never use.
      const format = chooseFormat(
        effectiveValues(this.flags, this.io.env).output.value,
        this.io.stdout.isTTY === true,
      );
      const fields = this.flags.fields
        ?.split(",")
        .map((f) => f.trim())
        .filter(Boolean);
      this.outputCache = new Output(this.io.stdout, {
        format,
        fields: fields && fields.length > 0 ? fields : undefined,
        color: useColor(this.io.stdout.isTTY, this.io.env),
        style: this.stdoutStyle,
        // A terminal that reports 0 columns (`docker run -t`, `script`) does not know its width.
        width: this.io.stdout.columns || undefined,
      });
    }
    return this.outputCache;
  }

  /** Prompts only when allowed (no `--no-input`, not CI) and both stdin and stdout are terminals. */
  get canPrompt(): boolean {
    const { io } = this;
    return this.flags.input !== false && !isCi(io.env) && io.stdin.isTTY === true && io.stdout.isTTY === true;
  }

  get dryRun(): boolean {
    return this.flags.dryRun === true;
  }

  /**
   * Messages meant for people, on stderr. They quote the service and input files, so their control characters
   * are shown escaped (tabs and line breaks kept).
   */
  info(message: string): void {
    this.say("", message);
  }
  success(message: string): void {
    this.say(`${this.style.green("✓")} `, message);
  }
  warn(message: string): void {
    this.say(`${this.style.yellow("warning:")} `, message);
  }
  hint(message: string): void {
    this.say(`${this.style.dim("hint:")} `, message);
  }
  private say(prefix: string, message: string): void {
    this.io.stderr.write(`${wrapMessage(prefix, escapeControls(message, "\t\n"), this.messageWidth)}\n`);
  }

  /** The terminal's width that messages on stderr wrap to; undefined when stderr is not a terminal. */
  get messageWidth(): number | undefined {
    const { isTTY, columns } = this.io.stderr;
    return isTTY === true && columns !== undefined && columns > 0 ? columns : undefined;
  }

  /** The SDK's client (`client.tests.list`) over this command's HTTP client: what commands call. */
  async client(): Promise<Client> {
    if (!this.sdkClient) {
      const http = await this.apiClient();
      const [{ Api }, { Client }] = await Promise.all([
        import("./api/endpoints.js"),
        import("./sdk/client.js"),
      ]);
      this.sdkClient ??= new Client(new Api(http), this.io.env);
    }
    return this.sdkClient;
  }

  /**
   * Whether `answer` is a write's answer the API layer could not read (it warned: the write was accepted, a
   * success): then it is printed as it came with --json, and nothing else is shown of it.
   */
  unreadAnswer(answer: unknown): boolean {
    if (this.sdkClient?.api.unreadWarning(answer) === undefined) return false;
    if (this.out.isJson && answer !== undefined) this.out.json(answer);
    return true;
  }

  /** The client of this command, shared by every call: `clientFor()` with the configured key. */
  async apiClient(): Promise<ApiClient> {
    this.httpClient ??= await this.clientFor();
    return this.httpClient;
  }

  /**
   * Where requests go and with which key: the settings, or with --sandbox the embedded sandbox's URLs and its
   * demo account's key (only an explicit `--api-key` picks another account; a real key would fail there).
   */
  async target() {
    const { settings } = this;
    const sandbox = this.flags.sandbox ? await this.embeddedSandbox() : undefined;
    const demo = sandbox !== undefined && settings.apiKeySource !== "flag";
    return {
      apiKey: demo ? (await import("./sandbox/index.js")).SANDBOX_KEYS.acme : settings.apiKey,
      keySource: demo ? "sandbox" : settings.apiKeySource,
      baseUrl: sandbox?.url ?? settings.baseUrl,
      skillsBaseUrl: sandbox?.skillsUrl ?? settings.skillsBaseUrl,
    };
  }

  /**
   * A client for target(), sending `apiKey` (a key being verified) or target's. Every client comes from here:
   * all honour --sandbox, --timeout, --retries, --debug, --dry-run.
   */
  async clientFor(apiKey?: string): Promise<ApiClient> {
    const { settings } = this;
    const target = await this.target();
    const key = apiKey ?? target.apiKey;
    if (!key) {
      throw new AuthError("No API key configured", {
        suggestion:
          "Run `assess auth login`, or set ASSESS_API_KEY (try `--sandbox` to explore without an account).",
      });
    }
    const { ApiClient } = await import("./api/client.js");
    return new ApiClient({
      baseUrl: target.baseUrl,
      skillsBaseUrl: target.skillsBaseUrl,
      apiKey: key,
      timeoutMs: settings.timeoutMs,
      retries: settings.retries,
      userAgent: `assess/${VERSION} node/${process.versions.node}`,
      debug: this.debug,
      warn: (line) => this.warn(line),
      dryRun: this.dryRun ? (request, readOnly) => this.dryRunRequest(request, readOnly) : undefined,
    });
  }

  /** `[debug] …` lines on stderr with --debug (control characters shown escaped); undefined without it. */
  get debug(): ((line: string) => void) | undefined {
    if (!this.debugEnabled) return undefined;
    return (line) => this.io.stderr.write(`[debug] ${escapeControls(line)}\n`);
  }

  /** The assessment base URL requests go to: the embedded sandbox's with `--sandbox`. */
  async assessBaseUrl(): Promise<string> {
    return this.flags.sandbox ? (await this.embeddedSandbox()).url : this.settings.baseUrl;
  }

  private async embeddedSandbox(): Promise<NonNullable<Context["sandbox"]>> {
    if (this.sandbox) return this.sandbox;
    const [{ startSandbox }, { ensurePrivateDir }] = await Promise.all([
      import("./sandbox/index.js"),
      import("./config/private.js"),
    ]);
    // A persistent demo account, private like the config folder (an older one was made 0755).
    const folder = join(configDir(this.io.env), "sandbox");
    ensurePrivateDir(configDir(this.io.env), folder, "the embedded sandbox's demo account");
    chmodSync(folder, 0o700);
    this.sandbox = await startSandbox({ stateFile: join(folder, "state.json") });
    this.info(
      `Using the embedded sandbox (demo account "acme", kept in ${configDir(this.io.env)}; nothing leaves this machine)`,
    );
    return this.sandbox;
  }

  /** `--dry-run`: every request is printed and none sent, except the reads of a command planning its writes. */
  private dryRunRequest(request: DryRunRequest, readOnly: boolean): boolean {
    if (readOnly && this.planning) return true;
    this.info(`[dry-run] would send ${request.method} ${request.url}; nothing was sent`);
    if (this.dryRunRequests) this.dryRunRequests.push({ dryRun: true, ...request });
    else this.out.json({ dryRun: true, ...request });
    return false;
  }

  /** A command that reads to decide what it would write: under `--dry-run` its reads are sent, said once. */
  planWithReads(why: string): void {
    if (!this.dryRun || this.planning) return;
    this.planning = true;
    this.info(`[dry-run] ${why}: those reads are sent; no write is`);
  }

  /** Where requests go, as bulk ledgers name it: the embedded sandbox is one place whatever its port. */
  targetBaseUrl(api: ApiName): string {
    if (this.flags.sandbox) return `sandbox:embedded/${api}`;
    return api === "skills" ? this.settings.skillsBaseUrl : this.settings.baseUrl;
  }

  async close(): Promise<void> {
    this.statusLine.clear();
    await this.httpClient?.close();
    await this.sandbox?.close();
  }
}
