import type { InviteBody } from "../../api/schemas.js";
import type { Context } from "../../context.js";
import { FLAG } from "../../parse/flag.js";
import { parsed } from "../../parse/flags.js";
import { parseStakeholders } from "../shared/email.js";
import { dropUndefined } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import { missingFlags, requireValues, resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import {
  candidateFields,
  candidateFlags,
  candidateValues,
  proctoringFlag,
  serviceWindow,
  showInvitation,
  windowFlags,
} from "./invitation.js";

const flags = {
  test: flag.id("the test to invite to (asked for when missing and prompts are allowed)"),
  ...candidateFlags(),
  ...windowFlags("when the invitation opens (YYYY-MM-DD, ISO, now, +2d)", "when the invitation closes"),
  proctoring: proctoringFlag(),
  // The service's word for "tell no one" is `disable`.
  stakeholders: flag.of(
    "<emails>",
    "comma-separated e-mails told of completion, or `disable`",
    parsed((text) => parseStakeholders(text, FLAG, "disable") ?? "disable"),
  ),
};

export default verb({
  summary: "Invite one candidate to a test",
  flags,
  examples: [
    "assess invite send --test 1001 --email ada@example.com --name 'Ada Lovelace'",
    "assess invite send --test 1001 --email ada@example.com --name Ada --end +7d --send-email --json",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
  const candidate = candidateValues(o);
  const testId = await resolveTestId(ctx, o.test, missingFlags(candidate));
  const [email, name] = await requireValues(ctx, candidate);
  const { start, end } = serviceWindow(o);
  const body = dropUndefined<InviteBody>({
    ...candidateFields(o, email, name),
    sendEmail: o.sendEmail ? "yes" : undefined,
    stakeholderEmails: o.stakeholders,
    startDateTime: start,
    endDateTime: end,
    timeZoneId: o.timezone,
    ProctoringMode: o.proctoring,
  });
  const client = await ctx.client();
  await showInvitation(ctx, await client.invitations.create(testId, body), email, `to test ${testId}`);
  return 0;
}
