import type { Command } from "commander";
import { examples, type Kit } from "../shared/kit.js";

export function register(program: Command, { lazy }: Kit): void {
  program.helpCommand(false);
  examples(
    program
      .command("help")
      .description("Show help for a command, or a topic: environment, formatting, exit-codes")
      .argument("[topic...]", "a topic, or a command such as `invite bulk`")
      .action(lazy(() => import("./show.js"))),
    ["assess help exit-codes", "assess help invite bulk"],
  );
}
