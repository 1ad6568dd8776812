import { UsageError } from "../../errors.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";
import { validEmail } from "../invite/shared.js";

export const USER_COLUMNS = [
  { key: "email", header: "EMAIL" },
  { key: "fullName", header: "NAME" },
  { key: "businessunitId", header: "BUSINESS UNIT" },
  { key: "status", header: "STATUS" },
];

/** `--email` checked as `invite send` checks a candidate's: a malformed address is exit 2, nothing sent. */
export const userEmail = () =>
  parsed((text) => {
    const problem = validEmail(text);
    if (problem)
      throw new UsageError(`${FLAG}: ${problem}`, "Give the user's address, like grace@example.com.");
    return text;
  });
