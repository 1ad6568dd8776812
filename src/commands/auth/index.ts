import type { Command } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(auth: Command, { lazy }: GroupSetup): void {
  examples(
    auth
      .command("login")
      .description(
        "Ask for the API key (hidden), verify it with one call, and store it in the profile (file mode 0600)",
      )
      .option("--with-key", "read the key from stdin instead of prompting")
      .action(lazy(() => import("./login.js").then((m) => m.login))),
    ["assess auth login", "printf '%s' \"$KEY\" | assess auth login --with-key --profile staging"],
  );
  examples(
    auth
      .command("status")
      .description("Show which key and URLs are in use, and check the key with one call")
      .action(lazy(() => import("./verbs.js").then((m) => m.status))),
    ["assess auth status", "assess auth status --json"],
  );
  examples(
    auth
      .command("logout")
      .description("Remove the stored API key from the profile")
      .action(lazy(() => import("./verbs.js").then((m) => m.logout))),
    ["assess auth logout --profile staging"],
  );
}
