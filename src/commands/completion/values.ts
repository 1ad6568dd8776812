import type { Option } from "commander";

/**
 * The values an option takes, for completion scripts, where the command checks them itself rather than with
 * commander's `.choices()` (links accept `Email` for `email`, so commander's exact match would refuse it).
 *
 * The declaration names where the command's own validation list lives, as a loader: a group's declaration
 * stays as light as before (the loader runs only in `assess completion`, never for `--help` or a command),
 * and completion offers exactly what the command accepts.
 *
 *   .addOption(offers(new Option("--type <type>", "…"), async () => (await import("./spec.js")).INVITATION_TYPES))
 */
export type ValueSource = () => Promise<readonly string[]>;

/** A registered symbol: the bundle may hold this module twice (one copy per chunk), the key is still one. */
const VALUES = Symbol.for("assess.completion.values");

type Offering = Option & { [VALUES]?: ValueSource };

export function offers(option: Option, values: ValueSource): Option {
  (option as Offering)[VALUES] = values;
  return option;
}

/** commander's choices, else the values declared with `offers`, else none. */
export async function valuesOf(option: Option): Promise<string[] | undefined> {
  if (option.argChoices) return [...option.argChoices];
  const source = (option as Offering)[VALUES];
  return source ? [...(await source())] : undefined;
}
