import { input } from "@inquirer/prompts";
import type { Context } from "../context.js";
import { promptIo } from "./io.js";

export async function askText(
  ctx: Context,
  message: string,
  validate?: (answer: string) => string | undefined,
): Promise<string> {
  const answer = await input(
    { message, required: true, validate: (value) => (validate ? (validate(value.trim()) ?? true) : true) },
    promptIo(ctx),
  );
  return answer.trim();
}
