/** A test link as the flags describe it: checked, turned into a request body, read back from the service. */
import {
  InvitationType,
  LinkStatus,
  ProctoringMode,
  ScheduleType,
  type TestLink,
  type TestLinkBody,
} from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { field, numberOf, positiveId } from "../../fields.js";
import { parseDate, toServiceTime } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";
import { timezone } from "../shared/common-flags.js";
import { parseStakeholders } from "../shared/email.js";
import { dropUndefined } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import type { OptionsOf } from "../shared/verb.js";

export const INVITATION_TYPES = InvitationType.options;
export const PROCTORING_MODES = ProctoringMode.options;
export const SCHEDULE_TYPES = ScheduleType.options;
export const LINK_STATUSES = LinkStatus.options;

/** One value per flag; absent means "not given" (create) or "keep" (update). */
export type LinkSpec = Omit<LinkFlags, "test">;

export const DEFAULTS = { proctoring: "disabled", status: "active" } as const satisfies LinkSpec;

/** Start and end times belong to these schedule types; validityindays counts days instead. */
export function isWindow(schedule: LinkSpec["schedule"]): boolean {
  return schedule === "timebound" || schedule === "slotwise";
}

export function parseName(value: string, name: string): string {
  const text = value.trim();
  if (!text) throw new UsageError(`${name} cannot be empty`);
  return text;
}

/**
 * The flags of `links create` and `links update` (every field of a test link); enum values in any case, sent
 * lower-case. `creating` says the defaults in help.
 */
export const linkFlags = (creating: boolean) => ({
  test: flag.id("the test the link belongs to (asked for when missing and prompts are allowed)"),
  name: flag.of(
    "<name>",
    "name of the link",
    parsed((text) => parseName(text, FLAG)),
  ),
  type: flag.choice(INVITATION_TYPES, "invitation type: email or open", { anyCase: true, value: "<type>" }),
  proctoring: flag.choice(
    PROCTORING_MODES,
    `proctoring: disabled, image or video${creating ? " (default disabled)" : ""}`,
    { anyCase: true, value: "<mode>" },
  ),
  schedule: flag.choice(SCHEDULE_TYPES, "schedule type: validityindays, timebound or slotwise", {
    anyCase: true,
    value: "<type>",
  }),
  validityDays: flag.id("days an invitation stays valid (validityindays schedules)", "<N>"),
  start: flag.date(
    "start",
    "first moment of access, e.g. 2026-12-01T09:00:00Z, 2026-12-01 or +1d (timebound, slotwise)",
  ),
  end: flag.date("end", "last moment of access; a bare date means its last second (timebound, slotwise)"),
  timezone: timezone(),
  // A comma-separated e-mail list; null clears it (`--stakeholders none`).
  stakeholders: flag.of(
    "<list>",
    "comma-separated e-mails told when a candidate completes; none clears them",
    parsed((text) => parseStakeholders(text, FLAG)),
  ),
  status: flag.choice(LINK_STATUSES, `active or inactive${creating ? " (default active)" : ""}`, {
    anyCase: true,
    value: "<status>",
  }),
  apiLink: flag.toggle(
    "mark an open link as an API link (isApiLink)",
    "mark an open link as not an API link",
  ),
});
type LinkFlags = OptionsOf<ReturnType<typeof linkFlags>>;

/** The flags given; flags that contradict each other are refused at once (no prompt or read fixes that). */
export function specFromFlags({ test: _test, ...given }: LinkFlags): LinkSpec {
  const flags = dropUndefined<LinkSpec>(given);
  rejectConflicts(flags, flags);
  return flags;
}

/**
 * Refuses flags that do not fit the link they would produce (`spec`), each problem saying which flag to drop
 * or add. Only given flags are judged: a kept value the new schedule does not use is simply not sent.
 */
export function rejectConflicts(spec: LinkSpec, flags: LinkSpec): void {
  const problems: string[] = [];
  if (spec.schedule === "validityindays" && (flags.start || flags.end)) {
    const given = [flags.start && "--start", flags.end && "--end"].filter(Boolean).join(" and ");
    problems.push(
      `${given} ${flags.start && flags.end ? "do" : "does"} not apply to a validityindays schedule: drop ${given}, or pass --schedule timebound or slotwise`,
    );
  }
  if (isWindow(spec.schedule) && flags.validityDays !== undefined) {
    problems.push(
      `--validity-days does not apply to a ${spec.schedule} schedule: drop --validity-days, or pass --schedule validityindays`,
    );
  }
  if (flags.apiLink !== undefined && spec.type === "email") {
    const flag = flags.apiLink ? "--api-link" : "--no-api-link";
    problems.push(`${flag} applies to open links only (isApiLink): drop ${flag}, or pass --type open`);
  }
  if (
    spec.schedule !== "validityindays" &&
    spec.start &&
    spec.end &&
    spec.end.getTime() <= spec.start.getTime()
  ) {
    problems.push(
      `The end (${toServiceTime(spec.end)}) must be after the start (${toServiceTime(spec.start)}): change --start or --end`,
    );
  }
  if (problems.length > 0) throw new UsageError(problems.join("; "), "Nothing was sent.", problems);
}

/** What a link of this spec still lacks, as the flags that would supply it. */
export function missingFlags(spec: LinkSpec): string[] {
  const missing: string[] = [];
  if (spec.name === undefined) missing.push("--name <name>");
  if (spec.type === undefined) missing.push(`--type ${INVITATION_TYPES.join("|")}`);
  if (spec.schedule === undefined) {
    missing.push(`--schedule ${SCHEDULE_TYPES.join("|")} (with --validity-days, or --start and --end)`);
  } else if (spec.schedule === "validityindays") {
    if (spec.validityDays === undefined) missing.push("--validity-days <N>");
  } else {
    if (spec.start === undefined) missing.push("--start <date>");
    if (spec.end === undefined) missing.push("--end <date>");
  }
  if (spec.timezone === undefined) missing.push("--timezone <id>");
  return missing;
}

/** The request body: only the schedule's own fields, and isApiLink with open links only. */
export function toBody(spec: LinkSpec): TestLinkBody {
  const window = isWindow(spec.schedule);
  return dropUndefined<TestLinkBody>({
    testLinkName: spec.name,
    invitationType: spec.type,
    isApiLink: spec.type === "open" ? spec.apiLink : undefined,
    proctoringSettings: spec.proctoring && { proctoringMode: spec.proctoring },
    invitationSchedule: spec.schedule && {
      scheduleType: spec.schedule,
      scheduleDetails: dropUndefined({
        invitationValidityInDays: window ? undefined : spec.validityDays,
        startDateTime: window && spec.start ? toServiceTime(spec.start) : undefined,
        endDateTime: window && spec.end ? toServiceTime(spec.end) : undefined,
        timeZoneId: spec.timezone,
      }),
    },
    stakeholderEmails: spec.stakeholders,
    testLinkStatus: spec.status,
  });
}

/** The link the service holds as flag values; values this tool does not know are left out. */
export function specFromLink(link: TestLink): LinkSpec {
  const details = link.invitationSchedule?.scheduleDetails;
  return dropUndefined<LinkSpec>({
    name: typeof link.testLinkName === "string" ? link.testLinkName : undefined,
    type: known(INVITATION_TYPES, link.invitationType),
    proctoring: known(PROCTORING_MODES, link.proctoringSettings?.proctoringMode),
    schedule: known(SCHEDULE_TYPES, link.invitationSchedule?.scheduleType),
    // Numbers the service may send as numeric strings: written back, they must be numbers again.
    validityDays: positiveId(field(details, "invitationValidityInDays")),
    start: serviceDate(details?.startDateTime, "start"),
    end: serviceDate(details?.endDateTime, "end"),
    timezone: numberOf(details, "timeZoneId"),
    stakeholders: stakeholdersOf(link.stakeholderEmails),
    status: known(LINK_STATUSES, link.testLinkStatus),
    apiLink: yesOrNo(link.isApiLink),
  });
}

/** A list the service may send as one comma-separated text (as API.md types it) or as an array of them. */
function stakeholdersOf(value: unknown): string | undefined {
  const list = Array.isArray(value) ? value.filter((item) => typeof item === "string").join(",") : value;
  return typeof list === "string" && list.trim() !== "" ? list : undefined;
}

/** A Boolean the service may send as one, as text ("true") or as 1/0; anything else is not known. */
function yesOrNo(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  const text = String(value).trim().toLowerCase();
  return text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : undefined;
}

function known<T extends string>(allowed: readonly T[], value: unknown): T | undefined {
  return typeof value === "string" ? allowed.find((a) => a === value.trim().toLowerCase()) : undefined;
}

function serviceDate(value: string | null | undefined, bound: "start" | "end"): Date | undefined {
  if (!value) return undefined;
  try {
    return parseDate(value, bound, bound);
  } catch {
    return undefined;
  }
}

/** Field-by-field differences between two bodies, as dotted paths (`invitationSchedule.scheduleType`). */
export function diffBodies(before: object, after: object) {
  const a = flatten(before);
  const b = flatten(after);
  const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  // null and absent both mean "none" (an empty stakeholder list).
  return paths
    .filter((path) => (a[path] ?? null) !== (b[path] ?? null))
    .map((path) => ({ path, from: a[path], to: b[path] }));
}

function flatten(value: object, prefix = ""): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== null && typeof inner === "object") Object.assign(flat, flatten(inner, `${prefix}${key}.`));
    else flat[`${prefix}${key}`] = inner;
  }
  return flat;
}
