/**
 * `links create` in a terminal: asks only for what the flags left out, in the order a person thinks about
 * a link, validates each answer as it is typed, then shows a summary and asks before creating anything.
 */
import { confirm, input, select } from "@inquirer/prompts";
import type { Context } from "../../context.js";
import { InterruptedError, UsageError } from "../../errors.js";
import { type Bound, parseDate, toServiceTime } from "../../parse/dates.js";
import { parseId } from "../../parse/numbers.js";
import { promptIo } from "../../prompts/io.js";
import {
  isWindow,
  type LinkSpec,
  parseName,
  parseStakeholders,
  problemOf,
  type ScheduleKind,
} from "./spec.js";

const SCHEDULE_CHOICES: Array<{ value: ScheduleKind; name: string; description: string }> = [
  {
    value: "validityindays",
    name: "validityindays",
    description: "each invitation stays valid for a number of days",
  },
  { value: "timebound", name: "timebound", description: "open between a start and an end time" },
  { value: "slotwise", name: "slotwise", description: "slot-wise access between a start and an end time" },
];

/** A past moment is refused; a minute of slack lets `now` through. */
const PAST_SLACK_MS = 60_000;

export async function runLinkWizard(ctx: Context, testId: number, given: LinkSpec): Promise<LinkSpec> {
  const io = promptIo(ctx);
  const ask = async <T>(message: string, parse: (text: string) => T, required = true): Promise<T> => {
    const answer = await input(
      { message, required, validate: (value) => problemOf(() => parse(value.trim())) ?? true },
      io,
    );
    return parse(answer.trim());
  };
  const spec: LinkSpec = { ...given };

  spec.name ??= await ask("Name of the link", (text) => parseName(text, "The name"));
  // An --api-link flag only makes sense on an open link, so it answers this question.
  spec.type ??=
    given.apiLink !== undefined
      ? "open"
      : await select(
          {
            message: "Invitation type",
            choices: [
              {
                value: "email" as const,
                name: "email",
                description: "candidates are invited by e-mail through the link",
              },
              { value: "open" as const, name: "open", description: "anyone with the link can take the test" },
            ],
          },
          io,
        );
  if (spec.type === "open")
    spec.apiLink ??= await confirm({ message: "Is it an API link (isApiLink)?", default: false }, io);
  spec.proctoring ??= await select(
    {
      message: "Proctoring",
      choices: [
        { value: "disabled" as const, name: "disabled", description: "no proctoring" },
        { value: "image" as const, name: "image", description: "photos of the candidate during the test" },
        { value: "video" as const, name: "video", description: "video of the candidate during the test" },
      ],
      default: "disabled",
    },
    io,
  );
  if (spec.schedule === undefined) {
    // Schedule fields given as flags narrow the choice to the types that use them.
    const choices = SCHEDULE_CHOICES.filter((c) =>
      given.validityDays !== undefined
        ? !isWindow(c.value)
        : given.start || given.end
          ? isWindow(c.value)
          : true,
    );
    spec.schedule =
      choices.length === 1 ? choices[0]!.value : await select({ message: "Schedule type", choices }, io);
  }
  if (spec.schedule === "validityindays") {
    spec.validityDays ??= await ask("Valid for how many days after each invitation?", (text) =>
      parseId(text, "The number of days"),
    );
  } else {
    spec.start ??= await ask(dateQuestion("Start of access", "+1d"), (text) =>
      futureDate(text, "start", spec.end),
    );
    spec.end ??= await ask(dateQuestion("End of access", "+30d"), (text) =>
      futureDate(text, "end", spec.start),
    );
  }
  spec.timezone ??= await ask("Time zone id (an integer, e.g. 1720)", (text) =>
    parseId(text, "The time zone id"),
  );
  if (spec.stakeholders === undefined) {
    const list = await ask(
      "Stakeholder e-mails to notify on completion, comma-separated (Enter for none)",
      (text) => parseStakeholders(text, "Stakeholders"),
      false,
    );
    spec.stakeholders = list ?? undefined;
  }
  spec.status ??= await select(
    {
      message: "Status",
      choices: [
        { value: "active" as const, name: "active", description: "candidates can use the link at once" },
        {
          value: "inactive" as const,
          name: "inactive",
          description: "create it switched off; `assess links activate` later",
        },
      ],
      default: "active",
    },
    io,
  );

  ctx.io.stderr.write(summary(testId, spec));
  if (!(await confirm({ message: "Create this link?", default: true }, io))) {
    throw new InterruptedError("Cancelled; nothing was created");
  }
  return spec;
}

function dateQuestion(what: string, relative: string): string {
  return `${what}, UTC (YYYY-MM-DD, YYYY-MM-DDTHH:mm:ssZ, or ${relative} from now)`;
}

/** A date as the flags read it, which must lie ahead and on the right side of the other bound. */
function futureDate(text: string, bound: Bound, other: Date | undefined): Date {
  const label = bound === "start" ? "The start" : "The end";
  const date = parseDate(text, bound, label);
  if (date.getTime() < Date.now() - PAST_SLACK_MS) {
    throw new UsageError(`${label} (${toServiceTime(date)}) is in the past; give a future date`);
  }
  if (other && bound === "end" && date.getTime() <= other.getTime()) {
    throw new UsageError(
      `The end (${toServiceTime(date)}) must be after the start (${toServiceTime(other)})`,
    );
  }
  if (other && bound === "start" && date.getTime() >= other.getTime()) {
    throw new UsageError(
      `The start (${toServiceTime(date)}) must be before the end (${toServiceTime(other)})`,
    );
  }
  return date;
}

function summary(testId: number, spec: LinkSpec): string {
  const access =
    spec.schedule === "validityindays"
      ? `${spec.validityDays} days after each invitation`
      : `${spec.start && toServiceTime(spec.start)} → ${spec.end && toServiceTime(spec.end)}`;
  const rows: Array<[string, string]> = [
    ["Test", String(testId)],
    ["Name", spec.name ?? ""],
    [
      "Invitation type",
      spec.type === "open" ? `open${spec.apiLink ? " (API link)" : ""}` : String(spec.type),
    ],
    ["Proctoring", String(spec.proctoring)],
    ["Schedule", `${spec.schedule}: ${access}`],
    ["Time zone id", String(spec.timezone)],
    ["Stakeholders", spec.stakeholders || "(none)"],
    ["Status", String(spec.status)],
  ];
  return `\nThe test link to create:\n${rows.map(([k, v]) => `  ${k.padEnd(16)}${v}`).join("\n")}\n\n`;
}
