import type { Command } from "commander";
import { examples, type GroupSetup, PERIOD_YES } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  const attempts = group;

  examples(
    attempts
      .command("list")
      .description("List the attempts of a period of any length (split into ≤30-day calls, deduplicated)")
      .option(
        "--from <date>",
        "start of the period: YYYY-MM-DD, ISO time with offset, 90d (90 days ago), now",
      )
      .option("--to <date>", "end of the period (a bare date includes the whole day)")
      .option("--state <state>", "attempt state the service filters on", "completed")
      .option("--limit <n>", "stop after this many attempts")
      .option(...PERIOD_YES)
      .action(lazy(() => import("./list.js"))),
    [
      "assess attempts list --from 2026-01-01 --to 2026-03-31",
      "assess attempts list --from 90d --to now -o ndjson | jq .testInvitationId",
    ],
  );
}
