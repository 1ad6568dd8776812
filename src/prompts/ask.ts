import { input } from "@inquirer/prompts";
import type { Context } from "../context.js";
import { promptIo } from "./io.js";

export async function askText(
  ctx: Context,
  message: string,
  validate?: (answer: string) => string | undefined,
): Promise<string> {
  const check = (value: string) => (validate ? (validate(value.trim()) ?? true) : true);
  return (await input({ message, required: true, validate: check }, promptIo(ctx))).trim();
}
