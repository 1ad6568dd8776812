/**
 * Invitations: POST /v3/tests/{testId}/invite, /testlinks/{testLinkId}/invite, /invite/bulk,
 * POST /v3/invitations/{id}/cancel and /reattempt.
 */

import { MAX_BULK_CANDIDATES } from "../../spec/limits.js";
import { PROCTORING_MODES } from "../../spec/proctoring-modes.js";
import { idParam, ok, ownedInvitation, ownedTest, type RouteContext } from "../context.js";
import { DATE_FORMAT_HINT, DAY_MS, isoSeconds, parseStrictUtc } from "../dates.js";
import { badRequest, MSG, statusError } from "../errors.js";
import { anonymousCandidate, type InviteOptions, inviteCandidate } from "../invite.js";
import type { Router } from "../router.js";
import { type Invitation, isFinished } from "../state.js";
import { newTestUrl } from "../tokens.js";
import {
  isEmail,
  isEmailList,
  isFlag,
  isHttpUrl,
  isInteger,
  isObject,
  isPresent,
  type JsonObject,
  nonEmptyString,
  Problems,
  requireObject,
} from "../validate.js";

/** Start/end in the strict UTC format, end after start. Returns the accepted strings. */
export function checkWindow(
  problems: Problems,
  body: JsonObject,
  startField: string,
  endField: string,
): { start?: string; end?: string } {
  const out: { start?: string; end?: string } = {};
  const start = body[startField];
  const end = body[endField];
  const startDate = isPresent(start) ? parseStrictUtc(start) : undefined;
  const endDate = isPresent(end) ? parseStrictUtc(end) : undefined;
  if (isPresent(start) && !startDate) problems.add(`${startField} must be in the format ${DATE_FORMAT_HINT}`);
  if (isPresent(end) && !endDate) problems.add(`${endField} must be in the format ${DATE_FORMAT_HINT}`);
  if (startDate && endDate && endDate.getTime() <= startDate.getTime()) {
    problems.add(`${endField} must be after ${startField}`);
  }
  if (startDate) out.start = start as string;
  if (endDate) out.end = end as string;
  return out;
}

function checkUrl(problems: Problems, body: JsonObject, field: string): string | undefined {
  const value = body[field];
  if (!isPresent(value) || value === "") return undefined;
  if (!isHttpUrl(value)) {
    problems.add(`${field} must be an absolute http or https URL`);
    return undefined;
  }
  return value;
}

function checkFlag(problems: Problems, body: JsonObject, field: string): number | undefined {
  const value = body[field];
  if (!isPresent(value)) return undefined;
  if (!isFlag(value)) {
    problems.add(`${field} must be 0 or 1`);
    return undefined;
  }
  return value;
}

function checkTimeZone(problems: Problems, body: JsonObject, field: string): number | undefined {
  const value = body[field];
  if (!isPresent(value)) return undefined;
  if (!isInteger(value)) {
    problems.add(`${field} must be an integer`);
    return undefined;
  }
  return value;
}

function checkProctoring(problems: Problems, body: JsonObject, field: string): string | undefined {
  const value = body[field];
  if (!isPresent(value)) return undefined;
  if (typeof value !== "string" || !(PROCTORING_MODES as readonly string[]).includes(value)) {
    problems.add(`${field} must be one of ${PROCTORING_MODES.join(", ")}`);
    return undefined;
  }
  return value;
}

/** emailId/fullName, required unless disableMandatoryFields=1 (then generated when absent). */
function checkCandidate(problems: Problems, body: JsonObject): { email: string; name: string } | undefined {
  const optional = body.disableMandatoryFields === 1;
  const email = body.emailId;
  const name = body.fullName;
  const hasEmail = isPresent(email) && email !== "";
  const hasName = isPresent(name) && name !== "";
  if (!hasEmail && !optional) problems.add("emailId is required");
  if (hasEmail && !isEmail(email)) problems.add(MSG.invalidEmail);
  if (!hasName && !optional) problems.add("fullName is required");
  if (hasName && !nonEmptyString(name)) problems.add("fullName must be a non-empty string");
  if (problems.list.length > 0) return undefined;
  const generated = hasEmail && hasName ? undefined : anonymousCandidate();
  return {
    email: hasEmail ? (email as string) : generated!.email,
    name: hasName ? (name as string).trim() : generated!.name,
  };
}

function inviteAnswer(inv: Invitation) {
  return { testInvitationId: inv.testInvitationId, testUrl: inv.testUrl };
}

/** POST /v3/tests/{testId}/invite — sendEmail the string "yes"/"no". */
function invite(ctx: RouteContext) {
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const body = requireObject(ctx.json());
  const problems = new Problems();
  const candidate = checkCandidate(problems, body);
  const callbackURL = checkUrl(problems, body, "callbackURL");
  const redirectURL = checkUrl(problems, body, "redirectURL");
  checkFlag(problems, body, "disableMandatoryFields");
  const hideInstruction = checkFlag(problems, body, "hideInstruction");
  let sendEmail: boolean | undefined;
  if (isPresent(body.sendEmail)) {
    const v = typeof body.sendEmail === "string" ? body.sendEmail.toLowerCase() : undefined;
    if (v === "yes" || v === "no") sendEmail = v === "yes";
    else problems.add("sendEmail must be 'yes' or 'no'");
  }
  let stakeholderEmails: string | undefined;
  if (isPresent(body.stakeholderEmails) && body.stakeholderEmails !== "") {
    if (typeof body.stakeholderEmails === "string" && isEmailList(body.stakeholderEmails, true)) {
      stakeholderEmails = body.stakeholderEmails;
    } else {
      problems.add("stakeholderEmails must be a comma separated list of e-mail addresses, or 'disable'");
    }
  }
  const window = checkWindow(problems, body, "startDateTime", "endDateTime");
  const timeZoneId = checkTimeZone(problems, body, "timeZoneId");
  const proctoringMode = checkProctoring(problems, body, "ProctoringMode");
  problems.throwIfAny();
  const options: InviteOptions = {
    callbackURL,
    redirectURL,
    startDateTime: window.start,
    endDateTime: window.end,
    timeZoneId,
    proctoringMode,
    hideInstruction,
    sendEmail,
    stakeholderEmails,
  };
  const inv = inviteCandidate(ctx.store, {
    accountId: ctx.account,
    testId: test.testId,
    email: candidate!.email,
    name: candidate!.name,
    channel: "invite",
    options,
    nowIso: isoSeconds(ctx.now),
    now: ctx.now,
  });
  return ok(inviteAnswer(inv), 201);
}

/** POST /v3/tests/{testId}/testlinks/{testLinkId}/invite — an invite's candidate fields, sendEmail 0/1. */
function inviteThroughLink(ctx: RouteContext) {
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const linkId = idParam(ctx, "testLinkId");
  const link = ctx.store.linksOf(test.testId).find((l) => l.testLinkId === linkId);
  if (!link) throw statusError(404, MSG.testLinkNotFound);
  if (link.testLinkStatus !== "active") throw badRequest(MSG.testLinkInactive);
  const body = requireObject(ctx.json());
  const problems = new Problems();
  const candidate = checkCandidate(problems, body);
  const callbackURL = checkUrl(problems, body, "callbackURL");
  const redirectURL = checkUrl(problems, body, "redirectURL");
  checkFlag(problems, body, "disableMandatoryFields");
  const hideInstruction = checkFlag(problems, body, "hideInstruction");
  const sendEmail = checkFlag(problems, body, "sendEmail");
  problems.throwIfAny();
  // The link's schedule decides the access window of the invitation it hands out.
  const details = link.invitationSchedule.scheduleDetails;
  const window =
    link.invitationSchedule.scheduleType === "validityindays"
      ? {
          start: isoSeconds(ctx.now),
          end: isoSeconds(new Date(ctx.now.getTime() + (details.invitationValidityInDays ?? 7) * DAY_MS)),
        }
      : { start: details.startDateTime ?? undefined, end: details.endDateTime ?? undefined };
  const inv = inviteCandidate(ctx.store, {
    accountId: ctx.account,
    testId: test.testId,
    email: candidate!.email,
    name: candidate!.name,
    channel: "testlink",
    options: {
      callbackURL,
      redirectURL,
      hideInstruction,
      sendEmail: sendEmail === undefined ? undefined : sendEmail === 1,
      startDateTime: window.start,
      endDateTime: window.end,
      timeZoneId: details.timeZoneId ?? undefined,
      proctoringMode: link.proctoringSettings.proctoringMode,
      stakeholderEmails: link.stakeholderEmails ?? undefined,
      testLinkId: link.testLinkId,
    },
    nowIso: isoSeconds(ctx.now),
    now: ctx.now,
  });
  return ok({ ...inviteAnswer(inv), status: "Pending" }, 201);
}

/** POST /v3/tests/{testId}/invite/bulk — ≤1000 candidates, all or nothing; answers `true` as text/plain. */
function inviteBulk(ctx: RouteContext) {
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const body = requireObject(ctx.json());
  const candidates = body.candidates;
  if (!Array.isArray(candidates)) throw badRequest("candidates is required and must be an array");
  if (candidates.length === 0) throw badRequest("candidates must contain at least one candidate");
  if (candidates.length > MAX_BULK_CANDIDATES) throw badRequest(MSG.bulkTooMany);
  const problems = new Problems();
  const window = checkWindow(problems, body, "startDateTime", "endDateTime");
  const timeZoneId = checkTimeZone(problems, body, "timezoneId");
  const proctoringMode = checkProctoring(problems, body, "proctoringMode");
  for (let i = 0; i < candidates.length; i++) {
    const c: unknown = candidates[i];
    if (!isObject(c)) {
      problems.add(`Candidate ${i + 1} must be an object with email and name`);
      continue;
    }
    if (!isEmail(c.email)) problems.add(`${MSG.invalidEmail}: ${String(c.email ?? "")} (candidate ${i + 1})`);
    else if (!nonEmptyString(c.name))
      problems.add(`Candidate name is required: ${c.email} (candidate ${i + 1})`);
  }
  problems.throwIfAny();
  const options: InviteOptions = {
    startDateTime: window.start,
    endDateTime: window.end,
    timeZoneId,
    proctoringMode,
  };
  const nowIso = isoSeconds(ctx.now);
  for (const c of candidates as Array<{ email: string; name: string }>) {
    inviteCandidate(ctx.store, {
      accountId: ctx.account,
      testId: test.testId,
      email: c.email,
      name: c.name.trim(),
      channel: "bulk",
      options,
      nowIso,
      now: ctx.now,
    });
  }
  return { status: 200, body: "true", contentType: "text/plain; charset=utf-8" };
}

function cancel(ctx: RouteContext) {
  const inv = ownedInvitation(ctx, idParam(ctx, "testInvitationId"));
  if (inv.status !== "Pending") throw statusError(400, MSG.onlyPendingCancel);
  inv.status = "Cancelled";
  inv.updatedAt = isoSeconds(ctx.now);
  return ok({ testInvitationId: inv.testInvitationId, status: "cancelled" });
}

/** POST /v3/invitations/{id}/reattempt — field names in their own casing (StartDateTime, CallbackUrl...). */
function reattempt(ctx: RouteContext) {
  const inv = ownedInvitation(ctx, idParam(ctx, "testInvitationId"));
  const raw = ctx.json();
  const body = raw === undefined ? {} : requireObject(raw);
  const problems = new Problems();
  const window = checkWindow(problems, body, "StartDateTime", "EndDateTime");
  const timeZoneId = checkTimeZone(problems, body, "TimeZoneId");
  const callbackUrl = checkUrl(problems, body, "CallbackUrl");
  const redirectUrl = checkUrl(problems, body, "RedirectUrl");
  const hideInstruction = checkFlag(problems, body, "hideInstruction");
  problems.throwIfAny();
  if (inv.status === "In Progress") throw statusError(400, MSG.reattemptInProgress);
  if (!isFinished(inv.status)) throw statusError(400, MSG.notAttemptedYet);
  const nowIso = isoSeconds(ctx.now);
  const next: Invitation = {
    testInvitationId: ctx.store.nextInvitationId(),
    accountId: inv.accountId,
    testId: inv.testId,
    email: inv.email,
    name: inv.name,
    status: "Pending",
    invitationType: "api",
    channel: "reattempt",
    testUrl: newTestUrl(),
    createdAt: nowIso,
    reattemptOf: inv.testInvitationId,
  };
  const callbackURL = callbackUrl ?? inv.callbackURL;
  const redirectURL = redirectUrl ?? inv.redirectURL;
  if (callbackURL) next.callbackURL = callbackURL;
  if (redirectURL) next.redirectURL = redirectURL;
  if (window.start) next.startDateTime = window.start;
  if (window.end) next.endDateTime = window.end;
  if (timeZoneId !== undefined) next.timeZoneId = timeZoneId;
  if (hideInstruction !== undefined) next.hideInstruction = hideInstruction;
  if (inv.proctoringMode) next.proctoringMode = inv.proctoringMode;
  ctx.store.addInvitation(next);
  return ok({
    testInvitationId: next.testInvitationId,
    testUrl: next.testUrl,
    callbackUrlRegistered: next.callbackURL !== undefined,
    redirectUrlRegistered: next.redirectURL !== undefined,
  });
}

export function registerInvitationRoutes(router: Router): void {
  router
    .add("POST", "/v3/tests/:testId/invite", invite)
    .add("POST", "/v3/tests/:testId/invite/bulk", inviteBulk)
    .add("POST", "/v3/tests/:testId/testlinks/:testLinkId/invite", inviteThroughLink)
    .add("POST", "/v3/invitations/:testInvitationId/cancel", cancel)
    .add("POST", "/v3/invitations/:testInvitationId/reattempt", reattempt);
}
