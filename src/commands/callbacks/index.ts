import type { Command } from "commander";
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
      .command("resend")
      .description("Ask the service to send the notifications of attempts again (chunks of ≤100 ids)")
      .argument("[ids...]", "testInvitationIds")
      .option("--file <ids.txt>", "ids, one per line (blank lines and # comments allowed); - reads stdin")
      .option("--from <date>", "resend every finished attempt of a period: its start (YYYY-MM-DD, ISO, 90d)")
      .option("--to <date>", "the period's end (a bare date includes the whole day)")
      .option("--chunk-size <n>", "ids per request (1-100, default 100)")
      .option(
        "--retry-uncertain",
        "send again the ids of chunks whose outcome an earlier run could not learn",
      )
      .option("--restart", "forget earlier runs of this input and send everything again")
      .option(...PERIOD_YES)
      .action(lazy(() => import("./resend.js"))),
    [
      "assess callbacks resend 100001 100002",
      "assess callbacks resend --file ids.txt --json",
      "assess callbacks resend --from 2026-10-01 --to 2026-10-31",
    ],
  );

  examples(
    group
      .command("reconcile")
      .description(
        "Resend exactly the notifications a `callbacks listen --log` file never received, for the finished attempts of a period",
      )
      .option("--from <date>", "start of the period: YYYY-MM-DD, ISO time, 7d (7 days ago)")
      .option("--to <date>", "end of the period (default: now; a bare date includes the whole day)")
      .option(
        "--log <listen.ndjson>",
        "the file `callbacks listen --log` appends to (TestInvitationId in any casing)",
      )
      .option("--test <id>", "only these tests' attempts (repeatable, or comma-separated)", collectList)
      .option(...PERIOD_YES)
      .action(lazy(() => import("./reconcile.js"))),
    [
      "assess callbacks reconcile --from 7d --log callbacks.ndjson --dry-run",
      "assess callbacks reconcile --from 2026-10-01 --to 2026-10-31 --log callbacks.ndjson --test 1001 --json",
      "0 6 * * * assess callbacks reconcile --from 2d --log /var/log/assess/callbacks.ndjson   # cron",
    ],
  );

  examples(
    group
      .command("listen")
      .description(
        "Receive test-completion notifications locally: print, log and forward each one (Ctrl-C stops); at most 1,000 (64 MiB) wait for their forward, then 503",
      )
      .option("--port <n>", "port to listen on (0 = any free port)", "4020")
      .option("--host <host>", "address to bind (anything but loopback exposes the receiver)", "127.0.0.1")
      .option(
        "--forward-to <url>",
        "also POST each notification, body and content type unchanged, to this URL; slack:<webhook URL> or teams:<workflow URL> posts a message for each finished attempt",
      )
      .option(...FORWARD_TIMEOUT)
      .option(...SIGNING_SECRET)
      .option("--log <file.ndjson>", "append every request received to this file, one JSON object per line")
      .option(
        "--secret-path",
        "accept only requests to an unguessable path (the service signs nothing); others get 404",
      )
      .action(lazy(() => import("./listen.js"))),
    [
      "assess callbacks listen",
      "assess callbacks listen --port 4020 --forward-to http://127.0.0.1:3000/hooks/assess --log callbacks.ndjson",
      "assess callbacks listen --host 0.0.0.0 --secret-path",
      "assess callbacks listen --forward-to teams:https://example.webhook.office.com/workflows/… --log callbacks.ndjson",
    ],
  );
}
