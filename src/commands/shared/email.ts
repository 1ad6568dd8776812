/** E-mail addresses as the user types them: a prompt's check and an `--email`-style flag. */
import { Email } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";

export function validEmail(value: string): string | undefined {
  return Email.safeParse(value).success ? undefined : `"${value}" is not a valid e-mail address`;
}

/** An e-mail flag: `--email: "x" is not a valid e-mail address`, with `hint` under it if given. */
export const emailFlag = (hint?: string) =>
  parsed((text) => {
    const problem = validEmail(text);
    if (problem) throw new UsageError(`${FLAG}: ${problem}`, hint);
    return text;
  });

/**
 * Stakeholders: every comma-separated address must be an e-mail; `off` (links: `none`, invites: `disable`) or
 * nothing gives null.
 */
export function parseStakeholders(value: string, name: string, off = "none"): string | null {
  const text = value.trim();
  if (text === "" || text.toLowerCase() === off) return null;
  const emails = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  for (const email of emails) {
    const problem = validEmail(email);
    if (problem)
      throw new UsageError(
        `${name}: ${problem}`,
        `Give a comma-separated list like hr@example.com,cto@example.com, or ${off}`,
      );
  }
  return emails.join(",");
}
