/** POST /v3/callbacks/process — queue test-completion notifications again, at most 100 ids per call. */

import { MAX_CALLBACK_IDS } from "../../spec/limits.js";
import { ok, type RouteContext } from "../context.js";
import { ApiError, MSG, resultErrors } from "../errors.js";
import { redeliver } from "../lifecycle.js";
import type { Router } from "../router.js";
import { type Invitation, isFinished } from "../state.js";
import { isObject } from "../validate.js";

function processCallbacks(ctx: RouteContext) {
  let body: unknown;
  try {
    body = ctx.json();
  } catch (e) {
    // Keep this endpoint's envelope for broken JSON; other refusals (415) pass as they are.
    if (e instanceof ApiError && e.status === 400) throw resultErrors(400, [MSG.invalidJson]);
    throw e;
  }
  const ids = isObject(body) ? body.testinvitationIds : undefined;
  if (!Array.isArray(ids)) throw resultErrors(400, ["testinvitationIds is required and must be an array"]);
  if (ids.length === 0) throw resultErrors(400, ["testinvitationIds must contain at least one id"]);
  if (ids.length > MAX_CALLBACK_IDS) throw resultErrors(400, [MSG.callbacksTooMany]);

  const unique = [...new Set(ids)];
  const offending: unknown[] = [];
  const found: Invitation[] = [];
  for (const raw of unique) {
    // Ids are Integer64; a digit string is read as the number it spells.
    const id = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
    const inv = typeof id === "number" && Number.isSafeInteger(id) ? ctx.store.invitation(id) : undefined;
    if (!inv || inv.accountId !== ctx.account) offending.push(id);
    else if (!found.includes(inv)) found.push(inv);
  }
  // Nothing is queued when any id is invalid: the caller fixes the list and sends it again.
  // The real service names them as strings (fixtures/real/callbacks/process-401.json).
  const named = ctx.env.shapes === "real" ? offending.map(String) : offending;
  if (offending.length > 0) throw resultErrors(401, [MSG.callbacksInvalidIds, ...named]);

  const successful: number[] = [];
  const failed: number[] = [];
  for (const inv of found) {
    if (inv.callbackURL && isFinished(inv.status)) {
      successful.push(inv.testInvitationId);
      // Queued: the answer does not wait for the delivery.
      void redeliver(ctx.env, inv);
    } else failed.push(inv.testInvitationId);
  }
  return ok({ result: { testinvitationIds: { successful, failed } }, errors: null });
}

export function registerCallbackRoutes(router: Router): void {
  router.add("POST", "/v3/callbacks/process", processCallbacks);
}
