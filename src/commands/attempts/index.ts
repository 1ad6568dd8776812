import { type Command, Option } from "commander";
import { ATTEMPT_STATES } from "../../spec/limits.js";
import {
  collectList,
  examples,
  FORWARD_TIMEOUT,
  type GroupSetup,
  PERIOD_YES,
  SIGNING_SECRET,
} from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  examples(
    group
      .command("list")
      .description("List the attempts of a period of any length (split into ≤30-day calls, deduplicated)")
      .option(
        "--from <date>",
        "start of the period: YYYY-MM-DD, ISO time with offset, 90d (90 days ago), now",
      )
      .option("--to <date>", "end of the period (a bare date includes the whole day)")
      .option("--test <id>", "only these tests' attempts (repeatable, or comma-separated)", collectList)
      .addOption(
        new Option(
          "--state <state>",
          "attempt state the service filters on (the service documents only completed: finished, left or terminated)",
        )
          .choices(ATTEMPT_STATES)
          .default("completed"),
      )
      .option("--limit <n>", "stop after this many attempts")
      .option("--all", "every attempt of the period (the default: every ≤30-day window is listed)")
      .option(...PERIOD_YES)
      .action(lazy(() => import("./list.js"))),
    [
      "assess attempts list --from 2026-01-01 --to 2026-03-31",
      "assess attempts list --from 90d --to now --test 1001,1002",
      "assess attempts list --from 90d --to now --all -o ndjson | jq .testInvitationId",
    ],
  );

  examples(
    group
      .command("watch")
      .description(
        "Show each attempt that finishes, once, by polling the attempt listing (no public callback URL needed); Ctrl-C stops",
      )
      .option("--test <id>", "only these tests' attempts (repeatable, or comma-separated)", collectList)
      .option("--interval <duration>", "time between polls: 30s, 5m, 1h (at least 5s)", "60s")
      .option(
        "--since <date>",
        "how far back the first run looks (1h, 2d, or a date); later runs go on from where the last one stopped. With --replay-dead-letters: only the letters given up since then (all when left out)",
        "1h",
      )
      .option(
        "--exec <command>",
        "run this shell command for each attempt, one at a time, with the attempt as JSON on stdin (its output goes to stderr); done when it exits 0",
      )
      .option("--exec-env-key", "pass ASSESS_API_KEY on to --exec (left out of its environment by default)")
      .option(
        "--exec-env-secret",
        "pass ASSESS_WEBHOOK_SECRET, the signing secret, on to --exec (left out of its environment by default)",
      )
      .option(
        "--forward <url>",
        "POST each attempt as JSON to this URL (no API key sent; messages and files show it without user info or query: https://host/path?…); slack:<webhook URL> or teams:<workflow URL> posts a message; done on a 2xx",
      )
      .option(...FORWARD_TIMEOUT)
      .option(...SIGNING_SECRET)
      .option(
        "--give-up-after <duration>",
        "how long a delivery that keeps failing stays pending before it goes to the dead-letter file beside the state (rotated at 64 MiB: the full one becomes <name>.dead-letter.1.ndjson, replacing the one before); a destination answering 410 Gone is stopped: what is pending for it, and every later delivery, goes to that file at once, also in later runs",
        "7d",
      )
      .option(
        "--once",
        "poll once, show and deliver what is new, and exit; exit 1 while a delivery is pending (for cron)",
      )
      .option(...PERIOD_YES)
      .option(
        "--replay-dead-letters",
        "put the dead letters back to be delivered to --forward or --exec, try them once and exit (1 while one is pending or dead again; JSON counts with --json); each is marked in the watch state so a rerun never replays it twice (the file keeps it), a failing one is dead-lettered again as a new line; resumes a destination stopped by 410 Gone",
      )
      .action(lazy(() => import("./watch.js"))),
    [
      "assess attempts watch --test 1001,1002",
      "assess attempts watch --exec 'jq -r .email >> finished.txt'",
      "assess attempts watch --forward http://127.0.0.1:3000/hooks/assess --interval 5m",
      "assess attempts watch --once --since 1d -o ndjson >> finished.ndjson   # from cron",
      "assess attempts watch --once --forward slack:https://hooks.slack.com/services/T000/B000/XXXX",
      "ASSESS_WEBHOOK_SECRET=whsec_… assess attempts watch --forward https://example.com/hooks/assess",
      "assess attempts watch --forward https://example.com/hooks/assess --signing-secret whsec_old… --signing-secret whsec_new…",
      "assess attempts watch --replay-dead-letters --since 2d --forward https://example.com/hooks/assess",
    ],
  );
}
