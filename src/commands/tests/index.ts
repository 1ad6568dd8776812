import type { Command } from "commander";
import { SETTING_FLAGS } from "../../spec/settings-flags.js";
import { examples, type GroupSetup, kebab } from "../shared/verbs.js";

export function register(tests: Command, { lazy }: GroupSetup): void {
  examples(
    tests
      .command("list")
      .description("List the account's tests")
      .option("--page <n>", "page number to show", "1")
      .option("--page-size <n>", "tests per page (1-100)", "20")
      .option("--all", "follow every page")
      .option("--limit <n>", "stop after this many tests")
      .action(lazy(() => import("./list.js"))),
    ["assess tests list", "assess tests list --all -o ndjson | jq .testId"],
  );

  examples(
    tests
      .command("get")
      .description("Show one test with its sections")
      .argument("<testId>", "the test's id")
      .action(lazy(() => import("./get.js"))),
    ["assess tests get 1001", "assess tests get 1001 --json"],
  );

  const settings = tests.command("settings").description("Read or change a test's settings");
  examples(
    settings
      .command("get")
      .description("Show a test's settings")
      .argument("<testId>", "the test's id")
      .action(lazy(() => import("./settings-get.js"))),
    ["assess tests settings get 1001"],
  );

  const set = settings
    .command("set")
    .description(
      "Change settings: --file sends a whole settings object; flags read, change and write back the whole object",
    )
    .argument("<testId>", "the test's id")
    .option(
      "--file <settings.json>",
      "a JSON file with the whole settings object: as `settings pull` writes it, or the service's (- reads stdin)",
    )
    .option("--force", "with --file: send a file pulled from another test")
    .option("--test-name <name>", "name of the test")
    .option("--test-alias-name <name>", "alias name of the test")
    .option("--type-of-test <1|2>", "1 = multiple questions, 2 = single question");
  for (const flag of SETTING_FLAGS)
    set.option(`--${kebab(flag)} <yes|no>`, `${flag} (yes/no, 1/0, true/false)`);
  examples(set.action(lazy(() => import("./settings-set.js"))), [
    "assess tests settings set 1001 --random-questions yes --copy-paste no",
    "assess tests settings set 1001 --file settings.json --dry-run",
  ]);

  examples(
    settings
      .command("pull")
      .description(
        "Write a test's whole settings as a file to edit: flat, flags as yes/no, with the test's id",
      )
      .argument("<testId>", "the test's id")
      .option("--out <file.json>", "where to write it (default: stdout)")
      .option("--force", "overwrite an existing --out file")
      .action(lazy(() => import("./settings-pull.js"))),
    [
      "assess tests settings pull 1001 --out settings.json",
      "assess tests settings pull 1001 > settings.json",
    ],
  );

  examples(
    settings
      .command("apply")
      .description(
        "Make a test's settings what a file says: shows each change (old → new), asks, sends the whole object once",
      )
      .argument("<testId>", "the test's id")
      .argument("<file.json>", "settings as `settings pull` writes them; fields left out keep their value")
      .option("--yes", "apply without asking (needed without a terminal)")
      .option("--force", "apply a file pulled from another test (its name included)")
      .action(lazy(() => import("./settings-apply.js"))),
    [
      "assess tests settings apply 1001 settings.json --dry-run   # the difference only",
      "assess tests settings apply 1001 settings.json --yes",
    ],
  );
}
