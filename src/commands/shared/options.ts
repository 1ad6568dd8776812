import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";

/**
 * The test a command works on: `--test`, or picked from the account's tests when prompts are allowed. Without
 * prompts, a missing --test is listed with the command's other missing values (`alsoMissing`).
 */
export async function resolveTestId(ctx: Context, value: number | undefined, alsoMissing: string[] = []) {
  if (value !== undefined) return value;
  if (!ctx.canPrompt)
    throw new UsageError(
      `Missing ${["--test <testId>", ...alsoMissing].join(", ")}`,
      "Run `assess tests list` to see your tests.",
    );
  ctx.planWithReads("Reading your tests to pick one");
  const client = await ctx.client();
  const { pickTest } = await import("../../prompts/pickTest.js");
  return pickTest(ctx, client);
}

/** Destructive commands confirm; without prompts (`--no-input`, `CI=true`), `--yes` is required. */
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

interface Required {
  flag: string;
  value: unknown;
  question: string;
  validate?: (answer: string) => string | undefined;
}

const given = (r: { value: unknown }) => r.value !== undefined && r.value !== "";

/** The flags of the values not given. */
export function missingFlags(required: Required[]): string[] {
  return required.filter((r) => !given(r)).map((r) => r.flag);
}

/** Values a command cannot do without: prompted for, else all missing ones in a single usage error. */
export async function requireValues(ctx: Context, required: Required[]): Promise<string[]> {
  const missing = missingFlags(required);
  if (missing.length > 0 && !ctx.canPrompt) {
    throw new UsageError(
      `Missing ${missing.join(", ")}`,
      "Pass the missing options (prompts are off: --no-input, CI, or not a terminal).",
    );
  }
  const answers: string[] = [];
  for (const r of required) {
    if (given(r)) answers.push(String(r.value));
    else {
      const { askText } = await import("../../prompts/ask.js");
      answers.push(await askText(ctx, r.question, r.validate));
    }
  }
  return answers;
}
