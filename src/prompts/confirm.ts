import { confirm } from "@inquirer/prompts";
import type { Context } from "../context.js";
import { DeclinedError } from "../errors.js";
import { promptIo } from "./io.js";

/** Asks; answering no ends the command with exit 0 and `declined` (what did not happen) on stderr. */
export async function confirmAction(
  ctx: Context,
  question: string,
  declined = "Nothing changed: you answered no",
): Promise<void> {
  const yes = await confirm({ message: question, default: false }, promptIo(ctx));
  if (!yes) throw new DeclinedError(declined);
}
