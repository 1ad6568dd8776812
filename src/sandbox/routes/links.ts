/** Test links: list, get, create, update; each schedule type with its own fields. */

import { PROCTORING_MODES, type ProctoringMode } from "../../spec/proctoring-modes.js";
import { idParam, ok, ownedTest, type RouteContext } from "../context.js";
import { DATE_FORMAT_HINT, parseStrictUtc } from "../dates.js";
import { MSG, statusError } from "../errors.js";
import type { Router } from "../router.js";
import type { ScheduleType, Test, TestLink } from "../state.js";
import { newTestLinkUrl } from "../tokens.js";
import {
  isEmailList,
  isInteger,
  isObject,
  isPresent,
  nonEmptyString,
  Problems,
  requireObject,
} from "../validate.js";

const INVITATION_TYPES = ["email", "open"] as const;
const SCHEDULE_TYPES = ["validityindays", "timebound", "slotwise"] as const;
const LINK_STATUSES = ["active", "inactive"] as const;

/** Enum values are matched case-insensitively (as the service's enum binding does) and stored lower-case. */
function enumValue<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  if (typeof value !== "string") return undefined;
  const lower = value.trim().toLowerCase();
  return allowed.find((a) => a === lower);
}

function view(link: TestLink): TestLink {
  return structuredClone(link);
}

function findLink(ctx: RouteContext, test: Test): TestLink {
  const id = idParam(ctx, "testLinkId");
  const link = ctx.store.linksOf(test.testId).find((l) => l.testLinkId === id);
  if (!link) throw statusError(404, MSG.testLinkNotFound);
  return link;
}

/**
 * Applies the sent fields of a create/update body onto `link` (a fresh default for create) and validates the
 * merged result, so an update that only flips the schedule type still needs that type's fields.
 */
function applyBody(link: TestLink, body: Record<string, unknown>, creating: boolean, testId: number): void {
  const problems = new Problems();
  if (isPresent(body.testId) && body.testId !== testId)
    problems.add("testId in the body does not match the path");

  if (isPresent(body.testLinkName)) {
    if (nonEmptyString(body.testLinkName)) link.testLinkName = body.testLinkName.trim();
    else problems.add("testLinkName must be a non-empty string");
  } else if (creating) problems.add("testLinkName is required");

  if (isPresent(body.invitationType)) {
    const v = enumValue(body.invitationType, INVITATION_TYPES);
    if (v) link.invitationType = v;
    else problems.add(MSG.invitationTypeOutside);
  } else if (creating) problems.add("invitationType is required");

  if (isPresent(body.testLinkStatus)) {
    const v = enumValue(body.testLinkStatus, LINK_STATUSES);
    if (v) link.testLinkStatus = v;
    else problems.add(MSG.linkStatusOutside);
  }

  if (isPresent(body.proctoringSettings)) {
    const ps = body.proctoringSettings;
    if (!isObject(ps)) problems.add("proctoringSettings must be an object");
    else if (isPresent(ps.proctoringMode)) {
      const v = enumValue<ProctoringMode>(ps.proctoringMode, PROCTORING_MODES);
      if (v) link.proctoringSettings.proctoringMode = v;
      else problems.add(MSG.proctoringModeOutside);
    }
  }

  if (body.stakeholderEmails === null || body.stakeholderEmails === "") link.stakeholderEmails = null;
  else if (body.stakeholderEmails !== undefined) {
    if (typeof body.stakeholderEmails === "string" && isEmailList(body.stakeholderEmails, false)) {
      link.stakeholderEmails = body.stakeholderEmails;
    } else problems.add("stakeholderEmails must be a comma separated list of e-mail addresses");
  }

  if (isPresent(body.invitationSchedule)) {
    const schedule = body.invitationSchedule;
    if (!isObject(schedule)) problems.add("invitationSchedule must be an object");
    else {
      if (isPresent(schedule.scheduleType)) {
        const v = enumValue<ScheduleType>(schedule.scheduleType, SCHEDULE_TYPES);
        if (v) link.invitationSchedule.scheduleType = v;
        else problems.add(MSG.scheduleTypeOutside);
      } else if (creating) problems.add("invitationSchedule.scheduleType is required");
      const details = schedule.scheduleDetails;
      if (isPresent(details) && !isObject(details))
        problems.add("invitationSchedule.scheduleDetails must be an object");
      else if (isObject(details)) {
        const target = link.invitationSchedule.scheduleDetails;
        for (const key of [
          "invitationValidityInDays",
          "startDateTime",
          "endDateTime",
          "timeZoneId",
        ] as const) {
          // Values are checked below against the schedule type; keep what was sent.
          if (details[key] !== undefined) (target as Record<string, unknown>)[key] = details[key];
        }
      }
    }
  } else if (creating) problems.add("invitationSchedule is required");

  if (isPresent(body.isApiLink)) {
    if (typeof body.isApiLink !== "boolean") problems.add("isApiLink must be true or false");
    else link.isApiLink = body.isApiLink;
  }
  // isApiLink belongs to open links only: refuse it on an e-mail link, drop it on a switch.
  if (link.invitationType === "email" && link.isApiLink) {
    if (body.isApiLink === true) problems.add("isApiLink can only be set on an open link");
    link.isApiLink = false;
  }

  checkSchedule(link, problems);
  problems.throwIfAny();
}

function checkSchedule(link: TestLink, problems: Problems): void {
  const type = link.invitationSchedule.scheduleType;
  const d = link.invitationSchedule.scheduleDetails;
  if (!SCHEDULE_TYPES.includes(type)) return;
  if (!isPresent(d.timeZoneId)) problems.add(`timeZoneId is required for scheduleType ${type}`);
  else if (!isInteger(d.timeZoneId)) problems.add("timeZoneId must be an integer");
  if (type === "validityindays") {
    const days = d.invitationValidityInDays;
    if (!isPresent(days))
      problems.add("invitationValidityInDays is required for scheduleType validityindays");
    else if (!isInteger(days) || days <= 0)
      problems.add("invitationValidityInDays must be a positive integer");
    // Fields of the other schedule types mean nothing here.
    d.startDateTime = null;
    d.endDateTime = null;
    return;
  }
  d.invitationValidityInDays = null;
  const start = d.startDateTime;
  const end = d.endDateTime;
  const startDate = parseStrictUtc(start);
  const endDate = parseStrictUtc(end);
  if (!isPresent(start)) problems.add(`startDateTime is required for scheduleType ${type}`);
  else if (!startDate) problems.add(`startDateTime must be in the format ${DATE_FORMAT_HINT}`);
  if (!isPresent(end)) problems.add(`endDateTime is required for scheduleType ${type}`);
  else if (!endDate) problems.add(`endDateTime must be in the format ${DATE_FORMAT_HINT}`);
  if (startDate && endDate && endDate.getTime() <= startDate.getTime()) {
    problems.add("endDateTime must be after startDateTime");
  }
}

function createLink(ctx: RouteContext) {
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const body = requireObject(ctx.json());
  const draft: TestLink = {
    testLinkId: 0,
    testId: test.testId,
    testLinkName: "",
    testLink: "",
    testLinkStatus: "active",
    invitationType: "email",
    isApiLink: false,
    proctoringSettings: { proctoringMode: "disabled" },
    stakeholderEmails: null,
    invitationSchedule: {
      scheduleType: "" as ScheduleType,
      scheduleDetails: {
        invitationValidityInDays: null,
        startDateTime: null,
        endDateTime: null,
        timeZoneId: null,
      },
    },
  };
  applyBody(draft, body, true, test.testId);
  draft.testLinkId = ctx.store.nextTestLinkId();
  draft.testLink = newTestLinkUrl();
  ctx.store.data.testLinks.push(draft);
  return ok(view(draft));
}

function updateLink(ctx: RouteContext) {
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const link = findLink(ctx, test);
  const body = requireObject(ctx.json());
  // Validate on a copy so a rejected update leaves the link untouched.
  const draft = structuredClone(link);
  applyBody(draft, body, false, test.testId);
  Object.assign(link, draft);
  return ok(view(link));
}

export function registerLinkRoutes(router: Router): void {
  router
    .add("GET", "/v3/tests/:testId/testlinks", (ctx) => {
      const test = ownedTest(ctx, idParam(ctx, "testId"));
      return ok({ testLinks: ctx.store.linksOf(test.testId).map(view) });
    })
    .add("POST", "/v3/tests/:testId/testlinks", createLink)
    .add("GET", "/v3/tests/:testId/testlinks/:testLinkId", (ctx) => {
      const test = ownedTest(ctx, idParam(ctx, "testId"));
      return ok(view(findLink(ctx, test)));
    })
    .add("POST", "/v3/tests/:testId/testlinks/:testLinkId", updateLink);
}
