import type { Command } from "commander";
import { valuesOf } from "./values.js";

/** What completion needs of one command: its subcommands, its options and their allowed values. */
export interface Node {
  path: string[];
  description: string;
  subcommands: string[];
  options: NodeOption[];
  /** What its positional arguments take: one of these words (commander's choices), file names, anything. */
  args: { choices?: string[]; files: boolean } | undefined;
}

export interface NodeOption {
  flags: string[];
  takesValue: boolean;
  takesFile: boolean;
  /** The values this command accepts for this option: commander's choices, or those declared with `offers`. */
  choices?: string[];
  description: string;
}

/** A value that names a file: `<file>`, `<file.csv>`, `--rejects <file.csv>`, `--log <file.ndjson>`. */
const FILE = /<[^>]*(file|\.csv|\.json|\.pdf|\.txt|\.ndjson|\.xlsx)[^>]*>/i;

/**
 * Walks commander's tree; global options are listed on the root and offered everywhere. Each option's values
 * are its own command's: `reports get --type` and `links create --type` are two options.
 */
export async function commandTree(root: Command): Promise<Node[]> {
  const nodes: Node[] = [];
  const visit = async (command: Command, path: string[]) => {
    const options: NodeOption[] = [];
    for (const o of command.options) {
      const takesValue = o.required || o.optional;
      options.push({
        flags: [o.short, o.long].filter((f): f is string => typeof f === "string"),
        takesValue,
        takesFile: FILE.test(o.flags),
        choices: takesValue ? await valuesOf(o) : undefined,
        description: o.description,
      });
    }
    const declared = command.registeredArguments;
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((c) => c.name()),
      options,
      args:
        declared.length === 0
          ? undefined
          : {
              choices: declared.flatMap((a) => a.argChoices ?? []),
              files: declared.some((a) => FILE.test(`<${a.name()}>`)),
            },
    });
    for (const sub of command.commands) await visit(sub, [...path, sub.name()]);
  };
  await visit(root, []);
  return nodes;
}
