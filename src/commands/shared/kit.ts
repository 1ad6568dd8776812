import type { Command } from "commander";
import type { Context } from "../../context.js";

/** What a verb module exports: it returns an exit code (or nothing for 0) and never exits itself. */
export type Handler = (
  ctx: Context,
  args: string[],
  options: Record<string, unknown>,
  command: Command,
) => Promise<number | undefined>;

export interface Kit {
  ctx: Context;
  /** An action that loads the verb's module only when the verb runs (keeps `--help` at bare-Node speed). */
  lazy(load: () => Promise<{ default: Handler }>): (...params: unknown[]) => Promise<void>;
}

export function createKit(ctx: Context, setExitCode: (code: number) => void): Kit {
  return {
    ctx,
    lazy(load) {
      return async (...params: unknown[]) => {
        const command = params.at(-1) as Command;
        const args = params
          .slice(0, -2)
          .flatMap((value) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));
        const { default: handler } = await load();
        setExitCode((await handler(ctx, args.map(String), command.opts(), command)) ?? 0);
      };
    },
  };
}

/** Adds "Examples:" to a command's help; every command has at least one. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n`);
}

/**
 * Calls a period's attempt listing makes without asking: one per 30-day window, so 24 ≈ two years. Above it
 * (`--from 1970-01-01 --to 2200-01-01` is ~2,800 calls) src/commands/attempts/period.ts asks first. Here, not
 * there, so that declaring `--yes` loads nothing more than the group's declaration.
 */
export const MAX_WINDOWS_UNASKED = 24;

/** `--yes` of every command that lists the attempts of a period: `.option(...PERIOD_YES)`. */
export const PERIOD_YES = [
  "-y, --yes",
  `make the calls of a period longer than ${MAX_WINDOWS_UNASKED} × 30 days (~2 years) without asking (required then when prompts are off)`,
] as const;

/** Commander collector for repeatable options: `--set a=1 --set b=2`. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Like collect, and commas separate values too: `--skill SQL,Python` = `--skill SQL --skill Python`. */
export function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}
