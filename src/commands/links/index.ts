import { type Command, Option } from "commander";
import { offers } from "../shared/completion-values.js";
import { examples, type GroupSetup, TIMEZONE } from "../shared/verbs.js";

type Listed = "INVITATION_TYPES" | "PROCTORING_MODES" | "SCHEDULE_TYPES" | "LINK_STATUSES";

/** An enumerated flag, completed with spec.ts's list of the values the commands check against. */
const listed = (flags: string, description: string, list: Listed) =>
  offers(new Option(flags, description), async () => (await import("./spec.js"))[list]);

/** The options of `links create`, which `links update` shares (every field of a test link). */
function linkOptions(command: Command, creating: boolean): Command {
  return command
    .option("--test <id>", "the test the link belongs to (asked for when missing and prompts are allowed)")
    .option("--name <name>", "name of the link")
    .addOption(listed("--type <type>", "invitation type: email or open", "INVITATION_TYPES"))
    .addOption(
      listed(
        "--proctoring <mode>",
        `proctoring: disabled, image or video${creating ? " (default disabled)" : ""}`,
        "PROCTORING_MODES",
      ),
    )
    .addOption(
      listed("--schedule <type>", "schedule type: validityindays, timebound or slotwise", "SCHEDULE_TYPES"),
    )
    .option("--validity-days <N>", "days an invitation stays valid (validityindays schedules)")
    .option(
      "--start <date>",
      "first moment of access, e.g. 2026-12-01T09:00:00Z, 2026-12-01 or +1d (timebound, slotwise)",
    )
    .option("--end <date>", "last moment of access; a bare date means its last second (timebound, slotwise)")
    .option(...TIMEZONE)
    .option(
      "--stakeholders <list>",
      "comma-separated e-mails told when a candidate completes; none clears them",
    )
    .addOption(
      listed(
        "--status <status>",
        `active or inactive${creating ? " (default active)" : ""}`,
        "LINK_STATUSES",
      ),
    )
    .option("--api-link", "mark an open link as an API link (isApiLink)")
    .option("--no-api-link", "mark an open link as not an API link");
}

export function register(links: Command, { lazy }: GroupSetup): void {
  examples(
    links
      .command("list")
      .description("List a test's links")
      .option("--test <id>", "the test (asked for when missing and prompts are allowed)")
      .option("--limit <n>", "show at most this many links")
      .option("--all", "show every link (the service answers them all at once)")
      .action(lazy(() => import("./list.js"))),
    ["assess links list --test 1001", "assess links list --test 1001 --json | jq '.[].testLink'"],
  );

  examples(
    links
      .command("get")
      .description("Show one link with its URL and schedule")
      .argument("<testLinkId>", "the link's id")
      .option("--test <id>", "the test the link belongs to")
      .action(lazy(() => import("./get.js"))),
    ["assess links get 3001 --test 1001", "assess links get 3001 --test 1001 --json"],
  );

  examples(
    linkOptions(
      links
        .command("create")
        .description(
          "Create a link; asks for what is missing when run in a terminal, with a summary before creating",
        ),
      true,
    ).action(lazy(() => import("./create.js"))),
    [
      "assess links create",
      "assess links create --test 1001 --name 'Campus 2026' --type email --schedule validityindays --validity-days 7 --timezone 1720",
      "assess links create --test 1001 --name 'Open day' --type open --api-link --schedule timebound --start 2026-12-01 --end 2026-12-31 --timezone 1720 --proctoring image",
    ],
  );

  examples(
    linkOptions(
      links
        .command("update")
        .description(
          "Change only the given fields of a link: reads it, applies the options, sends the result",
        )
        .argument("<testLinkId>", "the link's id"),
      false,
    ).action(lazy(() => import("./update.js"))),
    [
      "assess links update 3001 --test 1001 --validity-days 14",
      "assess links update 3001 --test 1001 --schedule timebound --start +1d --end +30d --dry-run",
    ],
  );

  // status.ts tells the two apart by the command's name.
  for (const verb of ["activate", "deactivate"] as const) {
    examples(
      links
        .command(verb)
        .description(
          verb === "activate"
            ? "Let candidates use a link again"
            : "Stop candidates using a link (it is kept)",
        )
        .argument("<testLinkId>", "the link's id")
        .option("--test <id>", "the test the link belongs to")
        .action(lazy(() => import("./status.js"))),
      [`assess links ${verb} 3001 --test 1001`],
    );
  }
}
