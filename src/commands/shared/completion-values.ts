import type { Option } from "commander";

/**
 * The values an option takes, for completion, where the command checks them itself rather than with
 * commander's `.choices()` (links accept `Email`). A loader, so that only `assess completion` runs it:
 *   .addOption(offers(new Option("--type <t>", "…"), async () => (await import("./spec.js")).TYPES))
 */
type ValueSource = () => Promise<readonly string[]>;

/** A registered symbol: the bundle may hold this module twice (one copy per chunk), the key is still one. */
const VALUES = Symbol.for("assess.completion.values");

type Offering = Option & { [VALUES]?: ValueSource };

export function offers(option: Option, values: ValueSource): Option {
  (option as Offering)[VALUES] = values;
  return option;
}

export async function valuesOf(option: Option): Promise<string[] | undefined> {
  if (option.argChoices) return [...option.argChoices];
  const source = (option as Offering)[VALUES];
  return source ? [...(await source())] : undefined;
}
