/** Moving an attempt through In Progress to its final status, and (re-)sending its notifications. */

import { FINAL_STATUSES, type FinalStatus } from "../spec/final-statuses.js";
import type { SandboxEnv } from "./context.js";
import { isoSeconds } from "./dates.js";
import { ApiError, MSG, statusError } from "./errors.js";
import { buildNotification, type Delivery } from "./notify.js";
import { scoreForInvitation } from "./scoring.js";
import { type Invitation, isFinished } from "./state.js";

export function reportPdfUrl(env: SandboxEnv, id: number): string {
  return `${env.assessUrl()}/v3/reports/${id}/pdf`;
}

async function notify(env: SandboxEnv, inv: Invitation): Promise<Delivery | undefined> {
  const url = inv.callbackURL;
  if (!url) return undefined;
  const test = env.store.test(inv.testId);
  const total = test?.sections.reduce((n, s) => n + s.points, 0) ?? 0;
  const payload = buildNotification(inv, total, reportPdfUrl(env, inv.testInvitationId));
  const outcome = await env.notifier.send(url, payload);
  env.store.logNotification({
    testInvitationId: inv.testInvitationId,
    url,
    status: outcome.status,
    attempts: outcome.attempts,
    payloadStatus: payload.Status,
    sentAt: isoSeconds(env.now()),
  });
  return { url: outcome.url, status: outcome.status, body: outcome.body };
}

/**
 * The candidate starts (In Progress notification) and finishes (final notification with scores and report).
 * Throws ApiError 404/400 so the control endpoint can answer it as is.
 */
export async function completeAttempt(
  env: SandboxEnv,
  testInvitationId: number,
  status: FinalStatus = "Complete",
  onChange: () => void = () => {},
): Promise<{ delivered: Delivery[] }> {
  if (!FINAL_STATUSES.includes(status)) {
    throw statusError(400, `status must be one of ${FINAL_STATUSES.join(", ")}`);
  }
  const inv = env.store.invitation(testInvitationId);
  if (!inv) throw statusError(404, MSG.invitationNotFound);
  env.store.refreshExpiry(inv, env.now());
  if (inv.status !== "Pending" && inv.status !== "In Progress") {
    throw statusError(
      400,
      `Only a Pending or In Progress invitation can be completed; invitation ${testInvitationId} is ${inv.status}`,
    );
  }
  const test = env.store.test(inv.testId);
  if (!test) throw new ApiError(500, { statusCode: 500, message: "The invitation's test is missing" });

  const delivered: Delivery[] = [];
  if (inv.status === "Pending") {
    inv.status = "In Progress";
    inv.startedAt = isoSeconds(env.now());
    onChange();
    const d = await notify(env, inv);
    if (d) delivered.push(d);
  }
  inv.result = scoreForInvitation(test, status, testInvitationId);
  inv.status = status;
  inv.completedAt = isoSeconds(env.now());
  inv.updatedAt = inv.completedAt;
  onChange();
  const d = await notify(env, inv);
  if (d) delivered.push(d);
  return { delivered };
}

/** Re-sends the final notification (callbacks process); failures are logged in the state, never thrown. */
export function redeliver(env: SandboxEnv, inv: Invitation): Promise<void> {
  if (!isFinished(inv.status)) return Promise.resolve();
  return notify(env, inv).then(
    () => undefined,
    () => undefined,
  );
}
