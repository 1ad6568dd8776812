import { type Command, Option } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  examples(
    group
      .addOption(
        new Option("--format <format>", "yaml or json (default: yaml; the global --json means json)").choices(
          ["yaml", "json"],
        ),
      )
      .action(lazy(() => import("./print.js"))),
    [
      "assess openapi > assess-openapi.yaml   # then in Postman: File → Import → the file",
      "assess openapi --format json > assess-openapi.json",
      "assess --profile staging openapi   # servers: that profile's base URLs",
    ],
  );
}
