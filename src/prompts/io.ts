import type { Context } from "../context.js";

/** Prompts read the terminal and draw on stderr, so stdout keeps only data. */
export function promptIo(ctx: Context) {
  return { input: ctx.io.stdin, output: ctx.io.stderr, clearPromptOnDone: false };
}
