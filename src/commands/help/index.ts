import type { Command } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  examples(
    group
      .argument("[topic...]", "a topic, or a command such as `invite bulk`")
      .action(lazy(() => import("./show.js"))),
    ["assess help exit-codes", "assess help invite bulk"],
  );
}
