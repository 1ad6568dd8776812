import type { Command } from "commander";
import { CONFIG_KEYS } from "../../config/store.js";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(config: Command, { lazy }: GroupSetup): void {
  examples(
    config
      .command("list")
      .description("Show the settings in effect and where each comes from (the key as ****1234)")
      .action(lazy(() => import("./verbs.js").then((m) => m.list))),
    ["assess config list", "assess config list --profile staging --json"],
  );
  examples(
    config
      .command("get")
      .description("Print one setting of the profile")
      .argument("<key>", CONFIG_KEYS.join(" | "))
      .action(lazy(() => import("./verbs.js").then((m) => m.get))),
    ["assess config get base-url"],
  );
  examples(
    config
      .command("set")
      .description("Change one setting of the profile (file mode 0600)")
      .argument("<key>", CONFIG_KEYS.join(" | "))
      .argument("<value>", "the new value")
      .action(lazy(() => import("./verbs.js").then((m) => m.set))),
    [
      "assess config set base-url https://api.example.com/assess",
      "assess config set output json --profile ci",
    ],
  );
  examples(
    config
      .command("unset")
      .description("Remove one setting from the profile")
      .argument("<key>", CONFIG_KEYS.join(" | "))
      .action(lazy(() => import("./verbs.js").then((m) => m.unset))),
    ["assess config unset skills-base-url"],
  );
  examples(
    config
      .command("path")
      .description("Print where the config file lives")
      .action(lazy(() => import("./verbs.js").then((m) => m.path))),
    ["assess config path"],
  );
}
