/** `links create` in a terminal: asks for what the flags left out, then confirms before creating. */
import { confirm, input, select } from "@inquirer/prompts";
import type { Context } from "../../context.js";
import { DeclinedError, UsageError } from "../../errors.js";
import { type Bound, parseDate, toServiceTime } from "../../parse/dates.js";
import { parseId } from "../../parse/numbers.js";
import { promptIo } from "../../prompts/io.js";
import { parseStakeholders } from "../shared/email.js";
import {
  INVITATION_TYPES,
  isWindow,
  LINK_STATUSES,
  type LinkSpec,
  PROCTORING_MODES,
  parseName,
  SCHEDULE_TYPES,
} from "./spec.js";

/** What each value offered by a select prompt means, shown beside it. */
const MEANINGS: Record<string, string> = {
  email: "candidates are invited by e-mail through the link",
  open: "anyone with the link can take the test",
  disabled: "no proctoring",
  image: "photos of the candidate during the test",
  video: "video of the candidate during the test",
  validityindays: "each invitation stays valid for a number of days",
  timebound: "open between a start and an end time",
  slotwise: "slot-wise access between a start and an end time",
  active: "candidates can use the link at once",
  inactive: "create it switched off; `assess links activate` later",
};

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
  const pick = <T extends string>(message: string, values: readonly T[], fallback?: T) => {
    const choices = values.map((value) => ({ value, name: value, description: MEANINGS[value] }));
    return select({ message, choices, default: fallback }, io);
  };
  const spec: LinkSpec = { ...given };

  spec.name ??= await ask("Name of the link", (text) => parseName(text, "The name"));
  // An --api-link flag only makes sense on an open link, so it answers this question.
  spec.type ??= given.apiLink !== undefined ? "open" : await pick("Invitation type", INVITATION_TYPES);
  if (spec.type === "open")
    spec.apiLink ??= await confirm({ message: "Is it an API link (isApiLink)?", default: false }, io);
  spec.proctoring ??= await pick("Proctoring", PROCTORING_MODES, "disabled");
  if (spec.schedule === undefined) {
    // Schedule fields given as flags narrow the choice to the types that use them.
    const types = SCHEDULE_TYPES.filter((type) =>
      given.validityDays !== undefined ? !isWindow(type) : given.start || given.end ? isWindow(type) : true,
    );
    spec.schedule = types.length === 1 ? types[0]! : await pick("Schedule type", types);
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
  spec.status ??= await pick("Status", LINK_STATUSES, "active");

  ctx.io.stderr.write(summary(testId, spec));
  if (!(await confirm({ message: "Create this link?", default: true }, io))) {
    throw new DeclinedError("Nothing was created: you answered no");
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
  if (other && (bound === "end" ? date <= other : date >= other)) {
    const side = bound === "end" ? "after the start" : "before the end";
    throw new UsageError(`${label} (${toServiceTime(date)}) must be ${side} (${toServiceTime(other)})`);
  }
  return date;
}

/** The wizard's validators: the same parsers as the flags, their message shown under the prompt. */
function problemOf(parse: () => unknown): string | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return error.suggestion ? `${error.message}. ${error.suggestion}` : error.message;
  }
}

function summary(testId: number, spec: LinkSpec): string {
  const access =
    spec.schedule === "validityindays"
      ? `${spec.validityDays} days after each invitation`
      : `${spec.start && toServiceTime(spec.start)} → ${spec.end && toServiceTime(spec.end)}`;
  const rows: Array<[string, string]> = [
    ["Test", String(testId)],
    ["Name", spec.name ?? ""],
    ["Invitation type", String(spec.type)],
    // Asked of open links only (an e-mail link is never an API link).
    ...(spec.type === "open" ? [["API link", spec.apiLink ? "yes" : "no"] as [string, string]] : []),
    ["Proctoring", String(spec.proctoring)],
    ["Schedule", `${spec.schedule}: ${access}`],
    ["Time zone id", String(spec.timezone)],
    ["Stakeholders", spec.stakeholders || "(none)"],
    ["Status", String(spec.status)],
  ];
  return `\nThe test link to create:\n${rows.map(([k, v]) => `  ${k.padEnd(16)}${v}`).join("\n")}\n\n`;
}
