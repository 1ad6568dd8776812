/** What the users verbs show of a user, and `--email` as they take it. */
import { field, isRecord } from "../../fields.js";
import { flag } from "../shared/flags.js";

export const USER_COLUMNS = [
  { key: "email", header: "EMAIL" },
  { key: "fullName", header: "NAME" },
  { key: "businessunitId", header: "BUSINESS UNIT" },
  { key: "status", header: "STATUS" },
];

/** `--email`: a malformed address is exit 2, nothing sent. */
export const userEmail = () =>
  flag.email("the user's e-mail", "Give the user's address, like grace@example.com.");

/**
 * The user as the answer shows them, with the values sent where it shows none: an answer may hold only a message
 * (`{"message": "User created successfully"}`: API.md says only "an object with" the fields).
 */
export function shownUser(user: unknown, sent: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = isRecord(user) ? { ...user } : {};
  for (const [key, value] of Object.entries(sent))
    if (value !== undefined && field(user, key) == null) shown[key] = value;
  return shown;
}
