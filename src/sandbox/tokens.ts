/** Unguessable tokens for candidate test URLs and test links (randomness is fine here: not seed data). */
import { randomUUID } from "node:crypto";

const HOST = "https://sandbox.assess.invalid";

export function testUrlFor(token: string): string {
  return `${HOST}/t/${token}`;
}

export function newTestUrl(): string {
  // randomUUID draws from a cached entropy pool: cheap enough for a million bulk invitations.
  return testUrlFor(randomUUID().replaceAll("-", ""));
}

export function newTestLinkUrl(): string {
  return `${HOST}/l/${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}
