/** Creating invitations, shared by the single, test-link and bulk invite routes (one dedupe rule for all). */
import { randomBytes } from "node:crypto";
import type { AccountId } from "./keys.js";
import type { Invitation, Store } from "./state.js";
import { newTestUrl } from "./tokens.js";

/** Per-invitation options; undefined means "not sent". */
export interface InviteOptions {
  callbackURL?: string | undefined;
  redirectURL?: string | undefined;
  startDateTime?: string | undefined;
  endDateTime?: string | undefined;
  timeZoneId?: number | undefined;
  proctoringMode?: string | undefined;
  hideInstruction?: number | undefined;
  sendEmail?: boolean | undefined;
  stakeholderEmails?: string | undefined;
  testLinkId?: number | undefined;
}

const OPTION_KEYS = [
  "callbackURL",
  "redirectURL",
  "startDateTime",
  "endDateTime",
  "timeZoneId",
  "proctoringMode",
  "hideInstruction",
  "sendEmail",
  "stakeholderEmails",
  "testLinkId",
] as const;

/** Sets the sent options and drops the old ones: a reset invitation carries only what this request said. */
function applyOptions(inv: Invitation, options: InviteOptions): void {
  const target = inv as unknown as Record<string, unknown>;
  for (const key of OPTION_KEYS) {
    const value = options[key];
    if (value === undefined) delete target[key];
    else target[key] = value;
  }
}

export interface InviteRequest {
  accountId: AccountId;
  testId: number;
  email: string;
  name: string;
  channel: Invitation["channel"];
  options: InviteOptions;
  nowIso: string;
  now: Date;
}

/**
 * As on the real service, re-inviting an e-mail whose invitation is Pending, Cancelled or Expired returns
 * that same invitation reset to Pending; a finished one gets a new invitation. One still In Progress is
 * returned as is (interpretation: the candidate is mid-test, nothing to reset).
 */
export function inviteCandidate(store: Store, req: InviteRequest): Invitation {
  const existing = store.latestInvitation(req.testId, req.email);
  if (existing && existing.accountId === req.accountId) {
    store.refreshExpiry(existing, req.now);
    if (existing.status === "Pending" || existing.status === "Cancelled" || existing.status === "Expired") {
      existing.status = "Pending";
      existing.name = req.name;
      existing.updatedAt = req.nowIso;
      applyOptions(existing, req.options);
      return existing;
    }
    if (existing.status === "In Progress") return existing;
  }
  const inv: Invitation = {
    testInvitationId: store.nextInvitationId(),
    accountId: req.accountId,
    testId: req.testId,
    email: req.email,
    name: req.name,
    status: "Pending",
    invitationType: "api",
    channel: req.channel,
    testUrl: newTestUrl(),
    createdAt: req.nowIso,
  };
  applyOptions(inv, req.options);
  store.addInvitation(inv);
  return inv;
}

/** disableMandatoryFields=1 without e-mail or name: the service makes up both. */
export function anonymousCandidate(): { email: string; name: string } {
  const tag = randomBytes(5).toString("hex");
  return {
    email: `candidate-${tag}@anonymous.assess.invalid`,
    name: `Anonymous Candidate ${tag.slice(0, 4).toUpperCase()}`,
  };
}
