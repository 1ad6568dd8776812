import { UsageError } from "../../errors.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";
import { validEmail } from "../invite/shared.js";

/** What is wrong with an address, for prompts; the same check as a candidate's (`invite send`). */
export const emailProblem = validEmail;

/**
 * `--email` checked here, as `invite send` checks a candidate's: a malformed address is a usage error (exit 2,
 * nothing sent), not a round trip to the service and exit 1. The request schemas (api/schemas.ts) still let
 * the service judge what passes this check, so its own words (its 400 messages) reach the user for anything
 * else it refuses.
 */
export const userEmail = () =>
  parsed((text) => {
    const problem = validEmail(text);
    if (problem)
      throw new UsageError(`${FLAG}: ${problem}`, "Give the user's address, like grace@example.com.");
    return text;
  });
