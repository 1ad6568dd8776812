import { Command, CommanderError, Option } from "commander";
import { groupOf, registerCommands } from "./commands/index.js";
import { createKit } from "./commands/shared/kit.js";
import { Context, type Io, VERSION } from "./context.js";
import { CliError, DryRunStop, ExitCode } from "./errors.js";
import { FORMATS } from "./output/format.js";

export interface MainOptions {
  /** Aborted on Ctrl-C by the launcher; long runs stop cleanly when it fires. */
  signal?: AbortSignal;
}

/** Runs one command line and returns its exit code; never calls process.exit (tests run it in-process). */
export async function main(argv: string[], io: Io = processIo(), options: MainOptions = {}): Promise<number> {
  const ctx = new Context(io, options.signal ?? new AbortController().signal);
  let exitCode: number = ExitCode.ok;
  try {
    const program = await buildProgram(
      ctx,
      (code) => {
        exitCode = code;
      },
      groupOf(argv),
    );
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    return report(ctx, error);
  } finally {
    await ctx.close().catch(() => undefined);
  }
}

/** The command tree; `group` names the one group declared in full ("all" for every group). */
export async function buildProgram(
  ctx: Context,
  setExitCode: (code: number) => void,
  group: string | undefined,
): Promise<Command> {
  const program = new Command("assess")
    .description("Run the skills-assessment and employee-skills service from your shell, CI and prompts")
    .version(VERSION, "-v, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .addOption(
      new Option("--profile <name>", "config profile to use (env ASSESS_PROFILE)").default(
        undefined,
        "default",
      ),
    )
    .option(
      "--api-key <key>",
      "API key (prefer ASSESS_API_KEY or `assess auth login`: flags leak into shell history)",
    )
    .option("--base-url <url>", "assessment API base URL; may carry a path prefix (env ASSESS_BASE_URL)")
    .option("--skills-base-url <url>", "employee-skills API base URL (env ASSESS_SKILLS_BASE_URL)")
    .addOption(
      new Option(
        "-o, --output <format>",
        "output format (default: table on a terminal, tsv when piped)",
      ).choices(FORMATS),
    )
    .option("--json", "same as -o json")
    .option("--fields <list>", "comma-separated fields to show (table, tsv, csv, json)")
    .option("--no-input", "never prompt; a missing value is an error (also when CI=true)")
    .option("--dry-run", "print the requests a command would send, and send nothing")
    .option("--debug", "log each HTTP request and answer on stderr, key redacted (env ASSESS_DEBUG=1)")
    .option("--timeout <ms>", "per-request timeout in milliseconds (default 30000)")
    .option("--retries <n>", "retry budget for failed requests (default 3)")
    .option("--sandbox", "run this command against an embedded sandbox (no account needed)")
    .option("--allow-http", "allow an http:// base URL to a host other than this machine")
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      outputError: () => undefined, // report() prints errors, with a hint
    })
    .exitOverride()
    .hook("preAction", () => {
      ctx.flags = program.opts();
    });
  program.helpCommand(false); // `assess help` is a group of its own, with topics
  await registerCommands(program, createKit(ctx, setExitCode), group);
  // Subcommands inherit the error handling and output routing of the root.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      sub.exitOverride().showSuggestionAfterError(true).configureOutput(program.configureOutput());
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** The one error handler: a message, a hint of what to do next, and the exit code of CLI.md. */
function report(ctx: Context, error: unknown): number {
  if (error instanceof DryRunStop) return ExitCode.ok;
  if (error instanceof CommanderError) {
    if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(error.code))
      return ExitCode.ok;
    const hint =
      error.code === "commander.unknownCommand" || error.code === "commander.unknownOption"
        ? "Run `assess --help` (or `assess <group> --help`) to see what is available."
        : undefined;
    return printError(ctx, error.message.replace(/^error: /, ""), ExitCode.usage, hint);
  }
  if (error instanceof CliError)
    return printError(ctx, error.message, error.exitCode, error.suggestion, error.status, error.messages);
  if (isNamed(error, "ExitPromptError") || isNamed(error, "AbortPromptError")) {
    return printError(ctx, "Cancelled; nothing was sent", ExitCode.interrupted);
  }
  if (isNamed(error, "ZodError")) {
    const issues = (error as { issues: Array<{ path: PropertyKey[]; message: string }> }).issues;
    const lines = issues.map((i) =>
      i.path.length > 0 ? `${i.path.map(String).join(".")}: ${i.message}` : i.message,
    );
    return printError(
      ctx,
      `Invalid request: ${lines.join("; ")}`,
      ExitCode.usage,
      undefined,
      undefined,
      lines,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  if (ctx.debugEnabled && error instanceof Error && error.stack) ctx.io.stderr.write(`${error.stack}\n`);
  return printError(
    ctx,
    message,
    ExitCode.failure,
    "This looks like a bug in assess; run again with --debug and report it.",
  );
}

function printError(
  ctx: Context,
  message: string,
  code: number,
  hint?: string,
  status?: number,
  messages?: string[],
): number {
  ctx.io.stderr.write(`${ctx.style.red("error:")} ${message}\n`);
  if (hint) ctx.io.stderr.write(`${ctx.style.dim("hint:")} ${hint}\n`);
  if (wantsJson(ctx)) {
    ctx.io.stderr.write(
      `${JSON.stringify({ error: { status: status ?? null, messages: messages ?? [message] } })}\n`,
    );
  }
  return code;
}

function wantsJson(ctx: Context): boolean {
  const flags = ctx.flags;
  return flags.json === true || flags.output === "json" || flags.output === "ndjson";
}

function isNamed(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** The launcher's entry: wires Ctrl-C and sets the exit code. */
export async function run(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  process.on("SIGINT", () => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.interrupted);
    controller.abort();
  });
  const code = await main(process.argv.slice(2), processIo(), { signal: controller.signal });
  process.exitCode = controller.signal.aborted && code === ExitCode.ok ? ExitCode.interrupted : code;
}
