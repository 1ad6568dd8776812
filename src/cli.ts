import { type Command, CommanderError } from "commander";
import { groupOf } from "./commands/groups.js";
import { validKeyAdvice } from "./config/resolve.js";
import { Context, type Io } from "./context.js";
import { ApiError, CliError, DeclinedError, DryRunStop, ExitCode } from "./errors.js";
import { escapeControls, jsonText } from "./escape.js";
import { quietWhenClosed } from "./output/pipe.js";
import { wrapMessage } from "./output/wrap.js";
import { zodIssueLines } from "./parse/issues.js";
import { declareProgram } from "./program.js";
import { redactUrl } from "./redact.js";
import { declareVerbs } from "./tree.js";

export interface MainOptions {
  /** Aborted on Ctrl-C by the launcher; long runs stop cleanly when it fires. */
  signal?: AbortSignal;
  /** Aborted by the launcher on a second Ctrl-C, just before it exits: a run says, synchronously, what it leaves. */
  stopNow?: AbortSignal;
  /** dist/check-worker.cjs, which checks half of a large bulk file. */
  checkWorker?: URL;
  /** The size from which a bulk file is checked in two halves (bulk/rows/parallel-check.ts; 8 MiB). */
  splitFrom?: number;
}

/** Runs one command line and returns its exit code; never calls process.exit (tests run it in-process). */
export async function main(argv: string[], io: Io = processIo(), options: MainOptions = {}): Promise<number> {
  // A reader that went away (`| head -1`) ends the output, not the command.
  quietWhenClosed(io.stdout);
  quietWhenClosed(io.stderr);
  const ctx = new Context(
    io,
    options.signal ?? new AbortController().signal,
    options.checkWorker,
    options.stopNow,
    options.splitFrom,
  );
  let exitCode: number = ExitCode.ok;
  let program: Command | undefined;
  try {
    await ctx.loadStyles();
    const setExitCode = (code: number) => {
      exitCode = code;
    };
    program = await buildProgram(ctx, setExitCode, argv);
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    // A usage error commander raises comes before any action: the global options it read (--json) still apply.
    if (error instanceof CommanderError && program) ctx.flags = { ...program.opts(), ...ctx.flags };
    return report(ctx, error);
  } finally {
    await ctx.close().catch(() => undefined);
  }
}

/** The command tree, with the group the command line names declared in full (`"all"`: every group). */
export async function buildProgram(
  ctx: Context,
  setExitCode: (code: number) => void,
  argv: string[] | "all",
): Promise<Command> {
  const program = declareProgram(ctx.io).hook("preAction", (_root, action) => {
    ctx.flags = program.opts();
    ctx.newProfile = action.name() === "login" && action.parent?.name() === "auth";
  });
  const group = argv === "all" ? "all" : groupOf(argv, program);
  await declareVerbs(program, ctx, setExitCode, all(group) ? "all" : group);
  // Subcommands inherit the error handling and output routing of the root.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      sub
        .exitOverride((error) => {
          // The error handler names the command whose arguments or options were wrong.
          throw Object.assign(error, { command: sub });
        })
        .showSuggestionAfterError(true)
        .configureOutput(program.configureOutput());
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** help and completion work on the whole tree: they need every group declared. */
const all = (group: string | undefined) => group === "all" || group === "help" || group === "completion";

/** The one error handler: a message, a hint of what to do next, and the exit code (README "Exit codes"). */
function report(ctx: Context, error: unknown): number {
  if (error instanceof DryRunStop) return ExitCode.ok;
  if (error instanceof DeclinedError) {
    ctx.info(error.message);
    return ExitCode.ok;
  }
  if (error instanceof CommanderError) {
    if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(error.code))
      return ExitCode.ok;
    const unknown = ["commander.unknownCommand", "commander.unknownOption"].includes(error.code);
    const hint = unknown
      ? "Run `assess --help` (or `assess <group> --help`) to see what is available."
      : `\`${commandLine((error as { command?: Command }).command)} --help\` shows its arguments, options and examples.`;
    return printError(ctx, error.message.replace(/^error: /, ""), ExitCode.usage, { hint });
  }
  if (error instanceof ApiError && error.status === 401 && error.ids.length > 0) {
    // The 401 of `callbacks/process` that names ids refuses those ids, not the key: exit 1, not 4.
    const { status, messages, ids } = error;
    return printError(ctx, `${error.message}: ${ids.join(", ")}`, ExitCode.failure, {
      hint: "These ids are not attempts of this account, or do not exist; `assess attempts list --from 30d --to now` shows recent ones.",
      status,
      messages,
      ids,
    });
  }
  if (error instanceof CliError) {
    const hint = error instanceof ApiError && error.status === 401 ? keyHint(ctx) : error.suggestion;
    const { message, exitCode, status, messages } = error;
    return printError(ctx, message, exitCode, { hint, status, messages });
  }
  const name = error instanceof Error ? error.name : undefined;
  if (name === "ExitPromptError" || name === "AbortPromptError") {
    return printError(ctx, "Cancelled; nothing was sent", ExitCode.interrupted);
  }
  const lines = zodIssueLines(error);
  if (lines)
    return printError(ctx, `Invalid request: ${lines.join("; ")}`, ExitCode.usage, { messages: lines });
  if (ctx.debugEnabled && error instanceof Error && error.stack)
    ctx.io.stderr.write(`${redactUrl(error.stack)}\n`);
  const hint = "This looks like a bug in assess; run again with --debug and report it.";
  return printError(ctx, error instanceof Error ? error.message : String(error), ExitCode.failure, { hint });
}

/** `assess tests get`: the words that run `command` (the root without one). */
function commandLine(command: Command | undefined): string {
  const words: string[] = [];
  for (let c = command; c?.parent; c = c.parent) words.unshift(c.name());
  return ["assess", ...words].join(" ");
}

/** A 401 ("API key not valid or Subscription expired or not found"): which key was sent, and how to fix it. */
function keyHint(ctx: Context): string {
  const { apiKeySource, profile } = ctx.settings;
  const origin =
    ctx.flags.sandbox === true && apiKeySource !== "flag"
      ? "the embedded sandbox's demo account"
      : apiKeySource === "flag"
        ? "--api-key"
        : apiKeySource === "environment"
          ? "ASSESS_API_KEY"
          : `profile "${profile}"`;
  return `The key sent comes from ${origin}; \`assess auth status\` shows which key and base URL are in use. Check that the key is current and the subscription active, then ${validKeyAdvice(ctx.settings)}.`;
}

interface Shown {
  hint?: string;
  status?: number;
  messages?: string[];
  ids?: number[];
}

function printError(ctx: Context, given: string, code: number, { hint, status, messages, ids }: Shown = {}) {
  // Messages quote the service and the user's input: control characters shown, not run; a URL's password never.
  const message = redactUrl(given);
  ctx.io.stderr.write(
    `${wrapMessage(`${ctx.style.red("error:")} `, escapeControls(message, "\t\n"), ctx.messageWidth)}\n`,
  );
  if (hint) ctx.hint(redactUrl(hint));
  if (jsonOutput(ctx)) {
    ctx.io.stderr.write(
      `${jsonText({ error: { status: status ?? null, messages: messages?.map(redactUrl) ?? [message], ...(ids ? { ids } : {}) } })}\n`,
    );
  }
  return code;
}

/** Whether the output in effect is JSON (-o json or ndjson, --json, or the profile's output setting). */
function jsonOutput(ctx: Context): boolean {
  const { json, output } = ctx.flags;
  if (json === true || output === "json" || output === "ndjson") return true;
  try {
    return ctx.out.isJson;
  } catch {
    // The error being reported may be that very setting (an unknown format, an unreadable config file).
    return false;
  }
}

function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Node creates process.stdin on first use (~2 ms), and most commands never read it.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
  };
}

/** The launcher's entry: wires Ctrl-C and sets the exit code. */
export async function run(options: Pick<MainOptions, "checkWorker"> = {}): Promise<void> {
  const controller = new AbortController();
  const stopNow = new AbortController();
  process.on("SIGINT", () => {
    // A second Ctrl-C does not wait for the clean stop; what is running first says what that leaves.
    if (controller.signal.aborted) {
      stopNow.abort();
      process.exit(ExitCode.interrupted);
    }
    controller.abort();
  });
  const code = await main(process.argv.slice(2), processIo(), {
    ...options,
    signal: controller.signal,
    stopNow: stopNow.signal,
  });
  process.exitCode = controller.signal.aborted && code === ExitCode.ok ? ExitCode.interrupted : code;
}
