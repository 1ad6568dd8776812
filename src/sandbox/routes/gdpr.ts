/** POST /v3/gdpr/requests — mask a candidate's records, or one attempt's with testinvitationId. */
import { createHash } from "node:crypto";
import { ok, type RouteContext } from "../context.js";
import { isoSeconds } from "../dates.js";
import { badRequest, MSG } from "../errors.js";
import type { Router } from "../router.js";
import { isEmail, isInteger, isPresent, requireObject } from "../validate.js";

export const MASKED_NAME = "Masked Candidate";

function maskRequest(ctx: RouteContext) {
  const body = requireObject(ctx.json());
  const email = body.CandidateEmail;
  if (!isPresent(email) || email === "") throw badRequest("CandidateEmail is required");
  if (!isEmail(email)) throw badRequest(MSG.invalidEmail);
  const onlyId = body.testinvitationId;
  if (isPresent(onlyId) && !isInteger(onlyId)) throw badRequest("testinvitationId must be an integer");

  const lower = email.toLowerCase();
  const targets = ctx.store.data.invitations.filter(
    (inv) =>
      inv.accountId === ctx.account &&
      !inv.masked &&
      inv.email.toLowerCase() === lower &&
      (!isPresent(onlyId) || inv.testInvitationId === onlyId),
  );
  if (targets.length === 0) throw badRequest(MSG.gdprNoRecords);

  // The same candidate always masks to the same address, so masked rows still group together.
  const hash = createHash("sha256").update(`${ctx.account}:${lower}`).digest("hex").slice(0, 10);
  for (const inv of targets) {
    const oldEmail = inv.email;
    inv.email = `masked-${hash}@masked.invalid`;
    inv.name = MASKED_NAME;
    inv.masked = true;
    inv.updatedAt = isoSeconds(ctx.now);
    ctx.store.reindexInvitationEmail(inv, oldEmail);
  }
  ctx.store.data.gdprRequests.push({
    accountId: ctx.account,
    candidateEmailSha256: createHash("sha256").update(lower).digest("hex"),
    testinvitationId: isPresent(onlyId) ? (onlyId as number) : null,
    maskedInvitationIds: targets.map((t) => t.testInvitationId),
    receivedAt: isoSeconds(ctx.now),
  });
  return ok({ result: MSG.gdprAccepted });
}

export function registerGdprRoutes(router: Router): void {
  router.add("POST", "/v3/gdpr/requests", maskRequest);
}
