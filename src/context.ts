import type { Readable, Writable } from "node:stream";
import type { DryRunRequest } from "./api/transport.js";
import {
  effectiveValues,
  type GlobalFlags,
  isCi,
  profileName,
  resolveSettings,
  type Settings,
} from "./config/resolve.js";
import { Connection } from "./connection.js";
import { escapeControls } from "./escape.js";
import { chooseFormat, useColor } from "./output/format.js";
import { Output } from "./output/output.js";
import { createProgress, type Progress, StatusLine } from "./output/progress.js";
import { loadStyle, plainStyle, type Style } from "./output/style.js";
import { wrapMessage } from "./output/wrap.js";
import type { Client } from "./sdk/client.js";

export interface Io {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/**
 * What a command needs, resolved lazily and once: its streams (output, messages, progress, prompts) and
 * settings; where its requests go and its client are its `connection` (connection.ts). One per `main()` call, so
 * tests can run many commands in one process.
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
  private connectionCache?: Connection;
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
    /** The size from which a bulk file is checked in two halves (default: parallel-check.ts's). */
    readonly splitFrom?: number,
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

  /** The SDK's client (`client.tests.list`): what commands call (connection.ts). */
  client(): Promise<Client> {
    return this.connection.client();
  }

  /**
   * Whether `answer` is a write's answer the API layer could not read (it warned: the write was accepted, a
   * success): then it is printed as it came with --json, and nothing else is shown of it.
   */
  unreadAnswer(answer: unknown): boolean {
    if (this.connection.made?.api.unreadWarning(answer) === undefined) return false;
    if (this.out.isJson && answer !== undefined) this.out.json(answer);
    return true;
  }

  /** Where this command's requests go, and its client: made on first use, once the global flags are read. */
  get connection(): Connection {
    this.connectionCache ??= new Connection({
      settings: this.settings,
      sandbox: this.flags.sandbox === true,
      env: this.io.env,
      debug: this.debug,
      dryRun: this.dryRun ? (request, readOnly) => this.dryRunRequest(request, readOnly) : undefined,
      info: (message) => this.info(message),
      warn: (message) => this.warn(message),
    });
    return this.connectionCache;
  }

  /** `[debug] …` lines on stderr with --debug (control characters shown escaped); undefined without it. */
  get debug(): ((line: string) => void) | undefined {
    if (!this.debugEnabled) return undefined;
    return (line) => this.io.stderr.write(`[debug] ${escapeControls(line)}\n`);
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

  async close(): Promise<void> {
    this.statusLine.clear();
    await this.connectionCache?.close();
  }
}
