import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";

/** A positive whole number from a flag or argument, or a usage error naming it. */
export function parseId(value: unknown, name: string): number {
  const text = String(value ?? "").trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`${name} must be a positive whole number, got "${text}"`);
  }
  return n;
}

export function parseIntInRange(value: unknown, name: string, min: number, max: number): number {
  const text = String(value ?? "").trim();
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || n < min || n > max) {
    // No upper bound of its own: the largest safe integer would only puzzle ("from 1 to 9007199254740991").
    const wanted =
      max < Number.MAX_SAFE_INTEGER
        ? `a whole number from ${min} to ${max}`
        : min === 1
          ? "a positive whole number"
          : `a whole number of at least ${min}`;
    throw new UsageError(`${name} must be ${wanted}, got "${text}"`);
  }
  return n;
}

export function optionalInt(
  value: unknown,
  name: string,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  return value === undefined ? undefined : parseIntInRange(value, name, min, max);
}

export function oneOf<T extends string>(value: unknown, name: string, allowed: readonly T[]): T {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of ${allowed.join(", ")}, got "${String(value)}"`);
}

/**
 * The test a command works on: `--test`, or picked from the account's tests when prompts are allowed.
 */
export async function resolveTestId(ctx: Context, value: unknown, flag = "--test"): Promise<number> {
  if (value !== undefined) return parseId(value, flag);
  if (!ctx.canPrompt)
    throw new UsageError(`Missing ${flag} <testId>`, "Run `assess tests list` to see your tests.");
  const api = await ctx.api();
  const { pickTest } = await import("../../prompts/pickTest.js");
  return pickTest(ctx, api);
}

/** Destructive commands confirm; without prompts, `--yes` is required (CLI.md `--no-input`). */
export async function confirmOrYes(ctx: Context, yes: unknown, question: string): Promise<void> {
  if (yes === true || ctx.dryRun) return;
  if (!ctx.canPrompt) {
    throw new UsageError(
      `${question} Refusing without confirmation`,
      "Pass --yes to confirm when prompts are not available.",
    );
  }
  const { confirmAction } = await import("../../prompts/confirm.js");
  await confirmAction(ctx, question);
}

export interface Required {
  flag: string;
  value: unknown;
  /** Asked when the value is missing and prompts are allowed. */
  question: string;
  /** Returns an error message for a bad answer. */
  validate?: (answer: string) => string | undefined;
}

/**
 * Values a command cannot do without: asked one prompt each when prompts are allowed, otherwise every
 * missing one is listed in a single usage error.
 */
export async function requireValues(ctx: Context, required: Required[]): Promise<string[]> {
  const missing = required.filter((r) => r.value === undefined || r.value === "");
  if (missing.length > 0 && !ctx.canPrompt) {
    throw new UsageError(
      `Missing ${missing.map((r) => r.flag).join(", ")}`,
      "Pass the missing options (prompts are off: --no-input, CI, or not a terminal).",
    );
  }
  const answers: string[] = [];
  for (const r of required) {
    if (r.value !== undefined && r.value !== "") {
      answers.push(String(r.value));
      continue;
    }
    const { askText } = await import("../../prompts/ask.js");
    answers.push(await askText(ctx, r.question, r.validate));
  }
  return answers;
}
