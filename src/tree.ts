/**
 * Commander's tree from the verbs' declarations (src/commands/shared/verb.ts): the root and its group stubs
 * come from program.ts; here each verb of the group a command line names (or of every group, for help and
 * completion) is declared with its arguments, flags, help and an action that loads its module and runs it.
 */

import { VERBS } from "assess:verbs";
import { Argument, type Command, Option } from "commander";
import { ORDER, SUBGROUPS } from "./commands/groups.js";
import { offers } from "./commands/shared/completion-values.js";
import type { FlagSpec } from "./commands/shared/flags.js";
import { longName, type VerbSpec } from "./commands/shared/verb.js";
import type { Context } from "./context.js";

/** Declares in full the verbs of the group `wanted` names ("all": every group) below their stubs. */
export async function declareVerbs(
  program: Command,
  ctx: Context,
  setExitCode: (code: number) => void,
  wanted: string | undefined,
): Promise<void> {
  const entries = VERBS.filter((entry) => wanted === "all" || entry.path[0] === wanted).sort(inHelpOrder);
  // The build writes each spec into the module (a manifest): then a verb's module loads only to run.
  const specs: VerbSpec[] = await Promise.all(
    entries.map(async (e) => (e.specText ? JSON.parse(e.specText) : (await e.load()).default.spec)),
  );
  for (const [i, entry] of entries.entries()) {
    const command = commandAt(program, entry.path);
    declare(command, specs[i]!);
    command.action(async (...params: unknown[]) => {
      const self = params.at(-1) as Command;
      const { default: verb } = await entry.load();
      setExitCode(await verb.start(ctx, self, params.slice(0, -2)));
    });
  }
}

/** By ORDER at each level of the two paths, then by name (the registry lists them by name). */
function inHelpOrder(a: { path: string[] }, b: { path: string[] }): number {
  for (let depth = 0; depth < Math.min(a.path.length, b.path.length); depth++) {
    if (a.path[depth] === b.path[depth]) continue;
    const order = ORDER[a.path.slice(0, depth).join(" ")] ?? [];
    const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
    return rank(a.path[depth]!) - rank(b.path[depth]!) || (a.path[depth]! < b.path[depth]! ? -1 : 1);
  }
  return a.path.length - b.path.length;
}

/** The command at `path` below the root, made (with its group's summary) where missing. */
function commandAt(program: Command, path: string[]): Command {
  let command = program;
  for (const [depth, name] of path.entries()) {
    const found = command.commands.find((c) => c.name() === name);
    const summary = SUBGROUPS[path.slice(0, depth + 1).join(" ")];
    command = found ?? command.command(name).description(summary ?? "");
  }
  return command;
}

function declare(command: Command, spec: VerbSpec): void {
  command.description(spec.summary);
  for (const a of spec.args) {
    const usage = `${a.required ? "<" : "["}${a.name}${a.variadic ? "..." : ""}${a.required ? ">" : "]"}`;
    const argument = new Argument(usage, a.description);
    command.addArgument(a.choices ? argument.choices(a.choices) : argument);
  }
  for (const f of spec.flags) {
    command.addOption(option(f));
    if (f.off) command.addOption(new Option(longName({ ...f, negated: true }), f.off));
  }
  const after = [
    spec.notes ? `\n${spec.notes}\n` : "",
    `\nExamples:\n${spec.examples.map((line) => `  $ ${line}`).join("\n")}\n`,
  ];
  command.addHelpText("after", after.join(""));
}

function option(f: FlagSpec): Option {
  const names = [f.short, longName(f)].filter(Boolean).join(", ");
  const option = new Option(f.value ? `${names} ${f.value}` : names, f.description);
  if (f.choices) option.choices(f.choices);
  if (f.default !== undefined) option.default(f.default, f.defaultHelp);
  if (f.repeat) option.argParser(f.repeat === "each" ? collect : collectList);
  if (f.hidden) option.hideHelp();
  return f.offers ? offers(option, async () => f.offers!) : option;
}

/** Repeatable flags: each value one item. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Like collect, and commas separate values too: `--skill SQL,Python`. */
function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}
