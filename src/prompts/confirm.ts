import { confirm } from "@inquirer/prompts";
import type { Context } from "../context.js";
import { InterruptedError } from "../errors.js";
import { promptIo } from "./io.js";

export async function confirmAction(ctx: Context, question: string): Promise<void> {
  const yes = await confirm({ message: question, default: false }, promptIo(ctx));
  if (!yes) throw new InterruptedError("Cancelled; nothing was sent");
}
