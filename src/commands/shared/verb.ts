/**
 * A verb is one file: `export default verb({ summary, args, flags, examples, run })`. Its flags and arguments
 * are declared once, each with the rule of its value (./flags.ts); commander's tree, help, completion and the
 * reference pages are built from these declarations (../tree.ts), and the same declaration parses the command
 * line before `run` is called. Where the file sits names the command: commands/invite/bulk.ts is
 * `assess invite bulk`, commands/tests/settings/get.ts `assess tests settings get`, and a file named as its
 * folder (commands/api/api.ts) is the group's own action.
 */
import type { Command } from "commander";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { FLAG } from "../../parse/flag.js";
import type { infer as Infer, ZodType } from "../../parse/zod.js";
import * as z from "../../parse/zod.js";
import type { Arg, ArgSpec, Flag, FlagSpec } from "./flags.js";

/** What commander and the help need of a verb: plain data, so a manifest can hold it. */
export interface VerbSpec {
  summary: string;
  args: ArgSpec[];
  flags: FlagSpec[];
  examples: string[];
  /** Help text shown after the options, before the examples. */
  notes?: string;
}

type Flags = Record<string, Flag>;
type Args = readonly Arg[];

/** The options `run` gets: each flag's value as its rule reads it (`--page-size 5` → `pageSize: 5`). */
export type OptionsOf<F extends Flags> = { [K in keyof F]: Infer<F[K]["schema"]> };
/** The arguments `run` gets, in order; a variadic last argument is an array. */
export type ArgsOf<A extends Args> = {
  -readonly [K in keyof A]: A[K] extends Arg<infer S> ? Infer<S> : never;
};

export interface VerbDeclaration<F extends Flags, A extends Args> {
  summary: string;
  args?: A;
  flags?: F;
  examples: string[];
  notes?: string;
  run(ctx: Context, options: OptionsOf<F>, args: ArgsOf<A>, command: Command): Promise<number | undefined>;
}

/** A declared verb: its spec, and `start`, which parses what commander read and runs it. */
export interface Verb {
  spec: VerbSpec;
  start(ctx: Context, command: Command, given: unknown[]): Promise<number>;
}

export function verb<F extends Flags = Record<never, never>, const A extends Args = []>(
  declaration: VerbDeclaration<F, A>,
): Verb {
  const flags = (declaration.flags ?? {}) as Flags;
  const args = (declaration.args ?? []) as Args;
  const spec: VerbSpec = {
    summary: declaration.summary,
    args: args.map((a) => a.spec),
    flags: Object.entries(flags).map(([key, flag]) => ({ ...flag.spec, key })),
    examples: declaration.examples,
    ...(declaration.notes ? { notes: declaration.notes } : {}),
  };
  return {
    spec,
    async start(ctx, command, given) {
      const options = parseWith(
        z.object(Object.fromEntries(Object.entries(flags).map(([key, flag]) => [key, flag.schema]))),
        command.opts(),
        (key) => longName(spec.flags.find((f) => f.key === key) ?? { key: String(key) }),
      );
      const values = parseWith(
        argsSchema(args),
        given,
        (i) => args[Number(i)]?.spec.name ?? `argument ${String(i)}`,
      );
      const code = await declaration.run(ctx, options as OptionsOf<F>, values as ArgsOf<A>, command);
      return code ?? 0;
    },
  };
}

/** The arguments as one tuple schema (commander gives a variadic one as an array, a missing one undefined). */
function argsSchema(args: Args): ZodType {
  return z.tuple(args.map((a) => a.schema) as [ZodType, ...ZodType[]]);
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

/** `pageSize` → `--page-size`; a negated flag `--no-api-link`. */
export function longName(flag: Pick<FlagSpec, "key" | "negated">): string {
  const kebab = (flag.key ?? "").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return flag.negated ? `--no-${kebab}` : `--${kebab}`;
}
