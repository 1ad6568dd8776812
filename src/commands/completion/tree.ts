import type { Command } from "commander";

/** What completion needs of one command: its subcommands, its options and their allowed values. */
export interface Node {
  path: string[];
  description: string;
  subcommands: string[];
  options: Array<{
    flags: string[];
    takesValue: boolean;
    takesFile: boolean;
    choices?: string[];
    description: string;
  }>;
}

/** Walks commander's tree; global options are listed on the root and offered everywhere. */
export function commandTree(root: Command): Node[] {
  const nodes: Node[] = [];
  const visit = (command: Command, path: string[]) => {
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((c) => c.name()),
      options: command.options.map((o) => ({
        flags: [o.short, o.long].filter((f): f is string => typeof f === "string"),
        takesValue: o.required || o.optional,
        takesFile: /<[^>]*(file|\.csv|\.json|\.pdf|\.txt|\.ndjson)[^>]*>/i.test(o.flags),
        choices: o.argChoices,
        description: o.description,
      })),
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(root, []);
  return nodes;
}
