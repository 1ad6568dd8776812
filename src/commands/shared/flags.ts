/**
 * Flags and arguments as verbs declare them: the name, the help, and the rule of the value, once.
 *
 *   flags: {
 *     test: flag.id("the test to invite to"),                   // --test <id>
 *     pageSize: flag.int(1, 100, "tests per page").default("20"), // --page-size <n>
 *     proctoring: flag.choice(PROCTORING_MODES, "proctoring mode"),
 *     yes: flag.bool("confirm without asking").short("-y"),
 *   }
 *
 * A flag's long name is its key in kebab case (`pageSize` → `--page-size`). Without a default a flag is
 * optional (`undefined` when not given); `.default(text)` gives commander the text, which the rule then reads.
 */
import type { Bound } from "../../parse/dates.js";
import * as rules from "../../parse/flags.js";
import type { ZodArray, ZodOptional, ZodType } from "../../parse/zod.js";
import * as z from "../../parse/zod.js";
import { emailFlag } from "./email.js";

/** What commander, help and completion need of a flag: plain data. */
export interface FlagSpec {
  /** The key of the verb's options (`pageSize`); its long name is made from it (`--page-size`). */
  key?: string;
  short?: string;
  /** `<id>`, `[groups]`; none for a switch. */
  value?: string;
  description: string;
  default?: string;
  /** Shown instead of the default's text in help. */
  defaultHelp?: string;
  /** Values commander checks and help lists. */
  choices?: readonly string[];
  /** Values completion offers, where the rule accepts more spellings than it lists (any case). */
  offers?: readonly string[];
  /** `--no-<key>`: the value is `true` unless given. */
  negated?: boolean;
  /** A switch with a `--no-<key>` too, described so: `true`, `false`, or not given. */
  off?: string;
  /** Repeatable: `each` value is one item (`--set a=1 --set b=2`), a `list` splits commas too. */
  repeat?: "each" | "list";
  hidden?: boolean;
}

/** A flag: its spec and the rule of its value (`inner`: the rule without `.optional()`). Methods give a copy. */
export class Flag<S extends ZodType = ZodType, I extends ZodType = ZodType> {
  constructor(
    readonly spec: FlagSpec,
    readonly schema: S,
    private readonly inner: I,
  ) {}

  /** A default, given as the user would type it; the flag's value is then always there. */
  default(text: string, help?: string): Flag<I, I> {
    return new Flag(
      { ...this.spec, default: text, ...(help ? { defaultHelp: help } : {}) },
      this.inner,
      this.inner,
    );
  }

  short(letter: string): Flag<S, I> {
    return new Flag({ ...this.spec, short: letter }, this.schema, this.inner);
  }

  hidden(): Flag<S, I> {
    return new Flag({ ...this.spec, hidden: true }, this.schema, this.inner);
  }
}

/** An optional flag taking `value` read by `rule`. */
function valued<S extends ZodType>(
  value: string,
  description: string,
  rule: S,
  more: Partial<FlagSpec> = {},
) {
  return new Flag({ value, description, ...more }, rule.optional(), rule);
}

/** A repeatable flag: every value read by `rule`, in order. */
function repeated<S extends ZodType>(
  value: string,
  description: string,
  rule: S,
  repeat: "each" | "list",
  empty?: string,
) {
  const list = empty === undefined ? z.array(rule) : z.array(rule).min(1, empty);
  return new Flag({ value, description, repeat }, list.optional(), list);
}

export const flag = {
  /** A switch: `true` when given. */
  bool: (description: string) => new Flag({ description }, z.boolean().optional(), z.boolean()),
  /** A switch and its `--no-` form (`--api-link`, `--no-api-link`): `true`, `false`, or `undefined`. */
  toggle: (on: string, off: string) =>
    new Flag({ description: on, off }, z.boolean().optional(), z.boolean()),
  /** A switch given as `--no-<name>`: `false` when given, `true` otherwise. */
  negated: (description: string) => new Flag({ description, negated: true }, z.boolean(), z.boolean()),
  text: (value: string, description: string) => valued(value, description, z.string()),
  id: (description: string, value = "<id>") => valued(value, description, rules.id()),
  int: (min: number, max: number | undefined, description: string, value = "<n>") =>
    valued(value, description, rules.int(min, max)),
  /** One of `values` (`anyCase`: `Video` reads as `video`). */
  choice: <T extends string>(
    values: readonly T[],
    description: string,
    { anyCase = false, value = "<value>" } = {},
  ) =>
    valued(
      value,
      description,
      rules.choice(values, { anyCase }),
      anyCase ? { offers: values } : { choices: values },
    ),
  date: (bound: Bound, description: string, value = "<date>") =>
    valued(value, description, rules.date(bound)),
  duration: (description: string, { min = 1000, value = "<duration>" } = {}) =>
    valued(value, description, rules.duration(min)),
  yesNo: (description: string, value = "<yes|no>") => valued(value, description, rules.yesNo()),
  email: (description: string, hint?: string) => valued("<email>", description, emailFlag(hint)),
  /** A value read by any rule (src/parse/flags.ts's `parsed`, or a zod schema). */
  of: <S extends ZodType>(value: string, description: string, rule: S) => valued(value, description, rule),
  /** Repeatable, each value one item. */
  each: <S extends ZodType>(value: string, description: string, rule: S) =>
    repeated(value, description, rule, "each"),
  /** Repeatable, and commas separate values too (`--test 1,2 --test 3`); `empty` refuses `--test ""` so. */
  list: <S extends ZodType>(value: string, description: string, rule: S, empty?: string) =>
    repeated(value, description, rule, "list", empty),
};

/** What commander and help need of an argument. */
export interface ArgSpec {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  choices?: readonly string[];
}

export interface Arg<S extends ZodType = ZodType> {
  spec: ArgSpec;
  schema: S;
}

/** The rule an argument's usage gives it: `[x]` may be missing, `<x...>` is every remaining value. */
type ArgRule<U extends string, S extends ZodType> = U extends `${string}...${string}`
  ? ZodArray<S>
  : U extends `[${string}]`
    ? ZodOptional<S>
    : S;

/**
 * An argument as usage writes it: `<testId>` required, `[topic]` optional, `<ids...>` the rest. Its rule reads
 * each value; `run` gets an array for a variadic one.
 */
function argument<U extends string, S extends ZodType>(
  usage: U,
  description: string,
  rule: S,
  choices?: readonly string[],
): Arg<ArgRule<U, S>> {
  const required = usage.startsWith("<");
  const variadic = usage.includes("...");
  const name = usage.slice(1, -1).replace("...", "");
  const schema = variadic ? z.array(rule) : required ? rule : rule.optional();
  return {
    spec: { name, description, required, variadic, ...(choices ? { choices } : {}) },
    schema: schema as ArgRule<U, S>,
  };
}

export const arg = {
  id: <U extends string>(usage: U, description: string) => argument(usage, description, rules.id()),
  text: <U extends string>(usage: U, description: string) => argument(usage, description, z.string()),
  of: <U extends string, S extends ZodType>(usage: U, description: string, rule: S) =>
    argument(usage, description, rule),
  choice: <U extends string, T extends string>(usage: U, values: readonly T[], description: string) =>
    argument(usage, description, rules.choice(values), values),
};
