import type { Command } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(users: Command, { lazy }: GroupSetup): void {
  examples(
    users
      .command("create")
      .description("Create a user (role Reviewer; they get an e-mail to set a password)")
      .option("--email <email>", "the user's e-mail")
      .option("--name <name>", "the user's full name")
      .option("--business-unit <id>", "business unit id (default: the account's default unit)")
      .action(lazy(() => import("./verbs.js").then((m) => m.create))),
    ["assess users create --email grace@example.com --name 'Grace Hopper'"],
  );
  examples(
    users
      .command("update")
      .description("Move a user to another business unit")
      .option("--email <email>", "the user's e-mail")
      .option("--business-unit <id>", "the new business unit id")
      .action(lazy(() => import("./verbs.js").then((m) => m.update))),
    ["assess users update --email grace@example.com --business-unit 11"],
  );
  // Their one verb, `status`, tells the two apart by the command's name.
  for (const verb of ["activate", "deactivate"] as const) {
    examples(
      users
        .command(verb)
        .description(
          verb === "activate"
            ? "Let a user access the system again"
            : "Stop a user accessing the system (data is kept)",
        )
        .option("--email <email>", "the user's e-mail")
        .action(lazy(() => import("./verbs.js").then((m) => m.status))),
      [`assess users ${verb} --email grace@example.com`],
    );
  }
}
