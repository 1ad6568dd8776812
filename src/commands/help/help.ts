import type { Command } from "commander";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { helpWidth, wrapText } from "../../output/wrap.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { TOPICS } from "./topics.js";

export default verb({
  summary: `Show help for a command, or a topic: ${Object.keys(TOPICS).join(", ")}`,
  args: [arg.text("[topic...]", "a topic, or a command such as `invite bulk`")],
  examples: ["assess help exit-codes", "assess help invite bulk"],
  run,
});

async function run(ctx: Context, _o: unknown, [words]: [string[]], command: Command): Promise<number> {
  const topic = TOPICS[words.join(" ")];
  if (topic) {
    ctx.out.write(wrapText(topic, helpWidth(ctx.io.stdout)));
    return 0;
  }
  let target = command.parent as Command;
  for (const word of words) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      throw new UsageError(
        `No help topic or command "${words.join(" ")}"`,
        `Topics: ${Object.keys(TOPICS).join(", ")}; or run \`assess --help\``,
      );
    }
    target = next;
  }
  target.outputHelp();
  return 0;
}
