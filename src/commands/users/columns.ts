/** What the users verbs show of a user, and `--email` as they take it. */
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
