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

/** The keys of flags that may be missing (no default). */
type OptionalKeys<F extends Flags> = {
  [K in keyof F]: undefined extends Infer<F[K]["schema"]> ? K : never;
}[keyof F];
/** The options `run` gets: each flag's value as its rule reads it (`--page-size 5` → `pageSize: 5`). */
export type OptionsOf<F extends Flags> = {
  [K in keyof F as K extends OptionalKeys<F> ? never : K]: Infer<F[K]["schema"]>;
} & { [K in OptionalKeys<F>]?: Infer<F[K]["schema"]> };
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
      const opts = command.opts();
      const options = parseEach(
        Object.entries(flags).map(([key, flag]) => [
          key,
          flag.schema,
          opts[key],
          longName({ ...flag.spec, key }),
        ]),
      );
      const values = parseEach(args.map((a, i) => [i, a.schema, given[i], a.spec.name]));
      const code = await declaration.run(
        ctx,
        options as OptionsOf<F>,
        Object.values(values) as ArgsOf<A>,
        command,
      );
      return code ?? 0;
    },
  };
}

/**
 * Each value read by its rule (one by one: a verb without flags loads no zod); what the rules refuse is one
 * usage error naming each flag or argument.
 */
function parseEach(items: Array<[PropertyKey, ZodType, unknown, string]>): Record<PropertyKey, unknown> {
  const values: Record<PropertyKey, unknown> = {};
  const messages: string[] = [];
  let suggestion: string | undefined;
  for (const [key, schema, input, name] of items) {
    const result = schema.safeParse(input);
    if (result.success) {
      values[key] = result.data;
      continue;
    }
    for (const issue of result.error.issues) {
      // The blocks of src/parse/flags.ts say it all (`{flag}` for the name); zod's own words need the name.
      messages.push(
        issue.code === "custom" ? issue.message.replaceAll(FLAG, name) : `${name}: ${issue.message}`,
      );
      suggestion ??= (issue as { params?: { suggestion?: string } }).params?.suggestion;
    }
  }
  if (messages.length > 0) throw new UsageError(messages.join("; "), suggestion, messages);
  return values;
}

/** `pageSize` → `--page-size`; a negated flag `--no-api-link`. */
export function longName(flag: Pick<FlagSpec, "key" | "negated">): string {
  const kebab = (flag.key ?? "").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return flag.negated ? `--no-${kebab}` : `--${kebab}`;
}
