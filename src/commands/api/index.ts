import type { Command } from "commander";
import { collect, examples, type GroupSetup } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  examples(
    group
      .argument("<method>", "GET, POST, PATCH, PUT or DELETE")
      .argument("<path>", "path after the base URL, e.g. /v3/tests or /employees (query string allowed)")
      .option("-d, --data <json>", "request body: JSON text, @file.json, or - for stdin")
      .option(
        "-f, --field <key=value>",
        "a typed field (numbers, true/false, null parsed): query for GET, body otherwise",
        collect,
      )
      .option("--skills", "send to the employee-skills base URL")
      .option("--paginate", "follow page-numbered lists (pageNo or PageNumber) and print all items")
      .option("-i, --include", "print the status line and headers before the body")
      .action(lazy(() => import("./request.js"))),
    [
      "assess api GET /v3/tests -f pageNo=1 -f pageSize=5",
      "assess api GET /employees --skills --paginate -f PageSize=50",
      'assess api POST /v3/gdpr/requests --data \'{"CandidateEmail":"ada@example.com"}\' --dry-run',
    ],
  );
}
