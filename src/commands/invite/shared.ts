import { Email } from "../../api/schemas.js";

export const invitationColumns = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

export function validEmail(value: string): string | undefined {
  return Email.safeParse(value).success ? undefined : `"${value}" is not a valid e-mail address`;
}

/** Bodies send only the fields the user gave. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
