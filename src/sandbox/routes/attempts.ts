/** POST /v3/candidates/testattempts?state=completed — finished attempts in a ≤30-day window. */

import { MAX_ATTEMPT_SPAN_DAYS } from "../../spec/limits.js";
import { ok, type RouteContext } from "../context.js";
import { DAY_MS, parseLooseUtc } from "../dates.js";
import { ApiError, MSG, resultErrors } from "../errors.js";
import type { Router } from "../router.js";
import { isFinished } from "../state.js";
import { isObject, isPresent } from "../validate.js";

const MAX_SPAN_MS = MAX_ATTEMPT_SPAN_DAYS * DAY_MS;

function listAttempts(ctx: RouteContext) {
  const state = ctx.query.get("state");
  if (state === null || state === "")
    throw resultErrors(400, ["The state query parameter is required (state=completed)"]);
  if (state.toLowerCase() !== "completed")
    throw resultErrors(400, [`state must be 'completed', not '${state}'`]);
  let body: unknown;
  try {
    body = ctx.json();
  } catch (e) {
    // Keep this endpoint's envelope for broken JSON; other refusals (415) pass as they are.
    if (e instanceof ApiError && e.status === 400) throw resultErrors(400, [MSG.invalidJson]);
    throw e;
  }
  if (!isObject(body))
    throw resultErrors(400, ["The body must be a JSON object with StartDateTime and EndDateTime"]);
  const errors: string[] = [];
  const start = parseLooseUtc(body.StartDateTime);
  const end = parseLooseUtc(body.EndDateTime);
  for (const [field, value, parsed] of [
    ["StartDateTime", body.StartDateTime, start],
    ["EndDateTime", body.EndDateTime, end],
  ] as const) {
    if (!isPresent(value) || value === "") errors.push(`${field} is required`);
    else if (!parsed) errors.push(`${field} must be a UTC date-time like 2024-01-31T00:00:00Z`);
  }
  if (start && end && end.getTime() < start.getTime())
    errors.push("EndDateTime must not be before StartDateTime");
  if (errors.length > 0) throw resultErrors(400, errors);
  if (end!.getTime() - start!.getTime() > MAX_SPAN_MS) throw resultErrors(400, [MSG.attemptsSpan]);

  const from = start!.getTime();
  const to = end!.getTime();
  const found = ctx.store.data.invitations.filter((inv) => {
    if (inv.accountId !== ctx.account || !isFinished(inv.status) || !inv.completedAt) return false;
    const t = Date.parse(inv.completedAt);
    return t >= from && t <= to;
  });
  found.sort(
    (a, b) =>
      Date.parse(a.completedAt!) - Date.parse(b.completedAt!) || a.testInvitationId - b.testInvitationId,
  );
  const testAttempts = found.map((inv) => ({
    testInvitationId: inv.testInvitationId,
    extEmployeeId: ctx.store.employeeByEmail(ctx.account, inv.email)?.externalEmployeeId ?? null,
    testId: inv.testId,
    name: inv.name,
    email: inv.email,
    invitationtype: inv.invitationType,
    // The real listing says `testStatus` and "Completed" (fixtures/real/attempts/list-200.json).
    ...(ctx.env.shapes === "real"
      ? { testStatus: inv.status === "Complete" ? "Completed" : inv.status }
      : { teststatus: inv.status }),
  }));
  return ok({ result: { testAttempts }, errors: null });
}

export function registerAttemptRoutes(router: Router): void {
  router.add("POST", "/v3/candidates/testattempts", listAttempts);
}
