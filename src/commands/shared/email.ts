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
