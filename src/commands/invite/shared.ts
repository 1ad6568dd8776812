import { Email } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import type { Format } from "../../output/format.js";
import type { Column } from "../../output/output.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";

export const invitationColumns: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

/**
 * The columns of an invitation just made. It is pending: the table says so where the answer says nothing
 * (invite send's carries no status, invite link's says "Pending"). Every other format shows only what the
 * service said: scripts get no value the service did not send.
 */
export function newInvitationColumns(format: Format): Column[] {
  if (format !== "table") return invitationColumns;
  return invitationColumns.map((column) =>
    column.key === "status" ? { ...column, get: (row) => field(row, "status") ?? "Pending" } : column,
  );
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
