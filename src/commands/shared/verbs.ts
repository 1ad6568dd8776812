import type { Command } from "commander";
import type { Context } from "../../context.js";
import { MAX_WINDOWS_UNASKED } from "../../core/periods.js";
import { UsageError } from "../../errors.js";
import { FLAG } from "../../parse/flag.js";
import type { infer as Infer, ZodType } from "../../parse/zod.js";

/** A verb module: the schemas of its options (as commander names them) and arguments, and `run`. */
export interface Verb<O extends ZodType = ZodType, A extends ZodType = ZodType> {
  options?: O;
  args?: A;
  run(ctx: Context, options: Infer<O>, args: Infer<A>, command: Command): Promise<number | undefined>;
}

/** What a command group's `register` gets: the context, and `lazy` to declare each verb's action. */
export interface GroupSetup {
  ctx: Context;
  /** An action that loads the verb's module only when it runs and parses the command line with its schemas. */
  lazy<O extends ZodType, A extends ZodType>(load: () => Promise<Verb<O, A>>): LazyAction;
}

/** The action `lazy` makes; it keeps its loader, for test/cli/options-schemas.test.ts. */
export type LazyAction = ((...params: unknown[]) => Promise<void>) & { load: () => Promise<Verb> };

export function groupSetup(ctx: Context, setExitCode: (code: number) => void): GroupSetup {
  return {
    ctx,
    lazy(load) {
      const action = async (...params: unknown[]) => {
        const command = params.at(-1) as Command;
        const given = params
          .slice(0, -2)
          .flatMap((value) => (Array.isArray(value) ? value : value === undefined ? [] : [value]))
          .map(String);
        // Each verb's run is typed by its own schemas; here only their shape matters.
        const verb: Verb = await load();
        const args =
          verb.args === undefined ? given : parseWith(verb.args, given, (i) => argName(command, i));
        const options =
          verb.options === undefined
            ? {}
            : parseWith(verb.options, command.opts(), (key) => flagName(command, key));
        setExitCode((await verb.run(ctx, options, args, command)) ?? 0);
      };
      return Object.assign(action, { load: load as () => Promise<Verb> });
    },
  };
}

/** A schema applied to what the user typed; what it refuses is one usage error naming each flag. */
function parseWith<S extends ZodType>(
  schema: S,
  input: unknown,
  nameOf: (key: PropertyKey) => string,
): Infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const messages = result.error.issues.map((issue) => {
    const name = issue.path.length > 0 ? nameOf(issue.path[0] as PropertyKey) : "options";
    // The blocks of src/parse/flags.ts say it all (`{flag}` for the name); zod's own words need the name.
    return issue.code === "custom" ? issue.message.replaceAll(FLAG, name) : `${name}: ${issue.message}`;
  });
  const first = result.error.issues[0] as { params?: { suggestion?: string } } | undefined;
  throw new UsageError(messages.join("; "), first?.params?.suggestion, messages);
}

/** `pageSize` → `--page-size`, as declared (`apiLink` of `--no-api-link` reads `--api-link`). */
function flagName(command: Command, key: PropertyKey): string {
  const option = command.options.find((o) => o.attributeName() === key);
  return option?.long ?? `--${kebab(String(key))}`;
}

/** `pageSize` → `page-size`: a flag's name from its attribute's. */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The name of the argument at `index` (a variadic last argument takes the rest). */
function argName(command: Command, index: PropertyKey): string {
  const declared = command.registeredArguments;
  return declared[Math.min(Number(index), declared.length - 1)]?.name() ?? `argument ${String(index)}`;
}

/** Adds "Examples:" to a command's help; every command has at least one. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n`);
}

/** `--yes` of every command that lists the attempts of a period: `.option(...PERIOD_YES)`. */
export const PERIOD_YES = [
  "-y, --yes",
  `make the calls of a period longer than ${MAX_WINDOWS_UNASKED} × 30 days (~2 years) without asking (required then when prompts are off)`,
] as const;

/** The forwards' deadline and signing, on `attempts watch` and `callbacks listen`: `.option(...X)`. */
export const FORWARD_TIMEOUT = [
  "--forward-timeout <duration>",
  "deadline of one forward: connect, headers and whole answer",
  "10s",
] as const;
export const SIGNING_SECRET = [
  "--signing-secret <whsec_…>",
  "sign each forward to a plain URL with Standard Webhooks headers (or set ASSESS_WEBHOOK_SECRET); repeat it to rotate secrets: one v1 signature per secret (ASSESS_WEBHOOK_SECRET takes several, space-separated)",
  collect,
] as const;

/** Commander collector for repeatable options. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Like collect, and commas separate values too: `--skill SQL,Python`. */
export function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

/** `--timezone` of every command that sends a timeZoneId; the ids are the service's, none is mapped here. */
export const TIMEZONE = [
  "--timezone <id>",
  "time-zone id the invitation is accessed in: an integer id of the service's List timezones operation (its path is not published: copy one from a link, `assess links get`, or ask the vendor); the sandbox takes any integer, its demo links use 1720",
] as const;
