import { Command, type Help, Option } from "commander";
import { GROUPS } from "./commands/groups.js";
import type { Io } from "./context.js";
import { FORMATS } from "./output/format.js";
import { helpWidth, wrapText } from "./output/wrap.js";
import { VERSION } from "./version.js";

/**
 * The root of the command tree: global options and a stub per command group. launch.ts answers `--help` and
 * `--version` with it alone; cli.ts declares in full the group a command line names.
 */
export function declareProgram(io: Pick<Io, "stdout" | "stderr">): Command {
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
    .option("--dry-run", "print the requests a command would send, and send none (see `assess help dry-run`)")
    .option("--debug", "log each HTTP request and answer on stderr, key redacted (env ASSESS_DEBUG=1)")
    .option("--timeout <ms>", "per-request timeout in milliseconds (default 30000)")
    .option("--retries <n>", "retry budget for failed requests (default 3)")
    .option("--sandbox", "run this command against an embedded sandbox (no account needed)")
    .option("--allow-http", "allow an http:// base URL to a host other than this machine")
    .configureOutput({
      // Help, with its notes and examples, fits the terminal (src/output/wrap.ts); 80 columns when piped.
      writeOut: (text) => io.stdout.write(wrapText(text, helpWidth(io.stdout))),
      writeErr: (text) => io.stderr.write(wrapText(text, helpWidth(io.stderr))),
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
      outputError: () => undefined, // the error handler prints errors, with a hint
    })
    .configureHelp({ minWidthToWrap: NARROWEST, formatItem })
    .exitOverride();
  program.helpCommand(false); // `assess help` is a group of its own, with topics
  for (const group of GROUPS) program.command(group.name).description(group.summary);
  return program;
}

/** A description column narrower than this goes under its term instead. */
const NARROWEST = 24;

/** One line of a list in help: commander's, unless too narrow; then the description wrapped below its term. */
function formatItem(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const room = width - termWidth - 4;
  if (!description || (room >= NARROWEST && description.split(/\s+/).every((word) => word.length <= room))) {
    return Object.getPrototypeOf(helper).formatItem.call(helper, term, termWidth, description, helper);
  }
  const indent = "      ";
  return `  ${term}\n${indent}${helper.boxWrap(description, width - indent.length).replace(/\n/g, `\n${indent}`)}`;
}
