import { Email, type Invitation } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import type { Column } from "../../output/output.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";

export const invitationColumns: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

/**
 * An invitation just made, as every format shows it: pending (a new invitation, or a re-invited one reset to
 * Pending, as the service's public documentation shows) where the answer carries no status, as invite send's does not; the service's own
 * status, in any casing, where it does.
 */
export function newInvitation(answer: Invitation): Invitation {
  return field(answer, "status") == null ? { ...answer, status: "Pending" } : answer;
}

export function validEmail(value: string): string | undefined {
  return Email.safeParse(value).success ? undefined : `"${value}" is not a valid e-mail address`;
}

/** An e-mail flag: `--email: "x" is not a valid e-mail address`. */
export const emailFlag = () =>
  parsed((text) => {
    const problem = validEmail(text);
    if (problem) throw new UsageError(`${FLAG}: ${problem}`);
    return text;
  });

/** Bodies send only the fields the user gave. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
