import { type Command, Option } from "commander";
import { examples, type GroupSetup, TIMEZONE } from "../shared/verbs.js";

const PROCTORING = ["disabled", "image", "video"];

export function register(invite: Command, { lazy }: GroupSetup): void {
  examples(
    invite
      .command("send")
      .description("Invite one candidate to a test")
      .option("--test <id>", "the test to invite to (asked for when missing and prompts are allowed)")
      .option("--email <email>", "candidate e-mail")
      .option("--name <name>", "candidate full name")
      .option("--callback-url <url>", "address that receives the test-completion notification")
      .option("--redirect-url <url>", "address the candidate is sent to after the test")
      .option("--send-email", "let the service e-mail the invitation to the candidate")
      .option("--start <date>", "when the invitation opens (YYYY-MM-DD, ISO, now, +2d)")
      .option("--end <date>", "when the invitation closes")
      .option(...TIMEZONE)
      .addOption(new Option("--proctoring <mode>", "proctoring mode").choices(PROCTORING))
      .option("--hide-instruction", "skip the test instruction page")
      .option("--stakeholders <emails>", "comma-separated e-mails told of completion, or `disable`")
      .option("--anonymous", "no e-mail or name needed: the service generates both")
      .action(lazy(() => import("./verbs.js").then((m) => m.send))),
    [
      "assess invite send --test 1001 --email ada@example.com --name 'Ada Lovelace'",
      "assess invite send --test 1001 --email ada@example.com --name Ada --end +7d --send-email --json",
    ],
  );

  examples(
    invite
      .command("bulk")
      .description(
        "Invite every candidate of a CSV file or .xlsx sheet (validated, resumable; never invites twice)",
      )
      .argument(
        "<file>",
        "CSV, or an .xlsx workbook, with a header row: email and name columns (see `assess help formatting`); - reads CSV from standard input",
      )
      .option("--test <id>", "the test to invite to (or a testid column in the file)")
      .option("--start <date>", "when the invitations open")
      .option("--end <date>", "when the invitations close")
      .option(...TIMEZONE)
      .addOption(new Option("--proctoring <mode>", "proctoring mode").choices(PROCTORING))
      .option("--chunk-size <n>", "candidates per request (at most 1000)", "1000")
      .option("--concurrency <n>", "requests in flight at once (fewer while the service answers 429)", "4")
      .option("--skip-invalid", "send the valid rows and write invalid ones to the rejects file")
      .option(
        "--rejects <file.csv>",
        "where rejected rows go (default: <file>.rejects.csv, stdin.rejects.csv for -; -2, -3… when an earlier run's is there and holds other rows)",
      )
      .option(
        "--force",
        "overwrite an existing --rejects file, or the default one (a link there is replaced; its target is left alone)",
      )
      .option("--email-column <name>", "the column holding e-mails")
      .option("--name-column <name>", "the column holding names")
      .option("--delimiter <char>", "field delimiter (default: detected among , ; and tab)")
      .option("--sheet <name>", "the sheet of an .xlsx workbook to read (default: its first)")
      .option("--restart", "ignore the ledger of earlier runs and send everything again")
      .option("--retry-uncertain", "resend rows whose earlier outcome is unknown")
      .option(
        "--plan",
        "print each row's class (new, already sent from here, finished, invalid, repeat) and send nothing",
      )
      .option(
        "--lookback <days>",
        "how far back to look for candidates who already finished the test (the attempt listing; 0: don't look). If the listing fails, --plan and --reattempt-finished stop (exit 1, nothing sent); a plain run warns how many rows it could not check",
        String(180),
      )
      .option(
        "--reattempt-finished",
        "give candidates who already finished a new attempt (the reattempt operation, once per candidate and test, whatever they finish later) instead of skipping them",
      )
      .action(lazy(() => import("./bulk.js"))),
    [
      "assess invite bulk candidates.csv --test 1001 --plan          # who is new, invited before, finished",
      "assess invite bulk candidates.csv --test 1001 --plan --json   # the rows by class",
      "assess invite bulk fixtures/candidates.csv --test 1001",
      "assess invite bulk candidates.csv --test 1001 --reattempt-finished --end +7d",
      "assess invite bulk candidates.xlsx --sheet Candidates --test 1001   # rejects go to candidates.rejects.csv",
      "assess invite bulk candidates.csv --test 1001 --end +14d --skip-invalid --json",
      "cut -d, -f1,2 export.csv | assess invite bulk - --test 1001",
    ],
  );

  examples(
    invite
      .command("link")
      .description("Invite one candidate through a test link")
      .option("--test <id>", "the test the link belongs to")
      .option("--link <testLinkId>", "the test link's id (see `assess links list`)")
      .option("--email <email>", "candidate e-mail")
      .option("--name <name>", "candidate full name")
      .option("--callback-url <url>", "address that receives the test-completion notification")
      .option("--redirect-url <url>", "address the candidate is sent to after the test")
      .option("--send-email", "let the service e-mail the invitation to the candidate")
      .option("--hide-instruction", "skip the test instruction page")
      .option("--anonymous", "no e-mail or name needed: the service generates both")
      .action(lazy(() => import("./verbs.js").then((m) => m.link))),
    ["assess invite link --test 1001 --link 3001 --email ada@example.com --name 'Ada Lovelace'"],
  );

  examples(
    invite
      .command("cancel")
      .description("Cancel a pending invitation")
      .argument("<testInvitationId>", "the invitation's id")
      .action(lazy(() => import("./verbs.js").then((m) => m.cancel))),
    ["assess invite cancel 100303"],
  );

  examples(
    invite
      .command("reattempt")
      .description("Let a candidate take a test again")
      .argument("<testInvitationId>", "the finished attempt's id")
      .option("--start <date>", "when the new attempt opens")
      .option("--end <date>", "when the new attempt closes")
      .option(...TIMEZONE)
      .option("--callback-url <url>", "address that receives the test-completion notification")
      .option("--redirect-url <url>", "address the candidate is sent to after the test")
      .option("--hide-instruction", "skip the test instruction page")
      .action(lazy(() => import("./verbs.js").then((m) => m.reattempt))),
    ["assess invite reattempt 100003 --end +3d"],
  );
}
