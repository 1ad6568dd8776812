import { Email, type Invitation } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import type { Column } from "../../output/output.js";
import { refusePastEnd } from "../../parse/dates.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";

const INVITATION_COLUMNS: Column[] = [
  { key: "testInvitationId", header: "INVITATION" },
  { key: "testUrl", header: "TEST URL" },
  { key: "status", header: "STATUS" },
];

/** Prints an invitation just made: Pending where the answer carries no status (invite send's does not). */
export async function showInvitation(ctx: Context, answer: Invitation): Promise<void> {
  const invitation = field(answer, "status") == null ? { ...answer, status: "Pending" } : answer;
  await ctx.out.record(invitation, INVITATION_COLUMNS);
}

/** The candidate's --email and --name, asked for when missing. */
export function candidateValues(o: { email?: string; name?: string }) {
  return [
    { flag: "--email", value: o.email, question: "Candidate e-mail", validate: validEmail },
    { flag: "--name", value: o.name, question: "Candidate full name" },
  ];
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

/** --start and --end of an invitation: the end after the start, and not past. */
export function checkWindow(start: Date | undefined, end: Date | undefined): void {
  if (start && end && end <= start) throw new UsageError("--end must be after --start");
  refusePastEnd(end);
}

/** Bodies send only the fields the user gave. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
