import type { Context } from "../../context.js";
import { parseId } from "../../parse/numbers.js";
import { dropUndefined } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import { missingFlags, requireValues, resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { candidateFields, candidateFlags, candidateValues, showInvitation } from "./invitation.js";

const flags = {
  test: flag.id("the test the link belongs to"),
  link: flag.id("the test link's id (see `assess links list`)", "<testLinkId>"),
  ...candidateFlags(),
};

export default verb({
  summary: "Invite one candidate through a test link",
  flags,
  examples: ["assess invite link --test 1001 --link 3001 --email ada@example.com --name 'Ada Lovelace'"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
  const required = [{ flag: "--link", value: o.link, question: "Test link id" }, ...candidateValues(o)];
  const testId = await resolveTestId(ctx, o.test, missingFlags(required));
  const [linkId, email, name] = await requireValues(ctx, required);
  // A prompted answer is read as the flag would have been.
  const testLinkId = parseId(linkId, "--link");
  const client = await ctx.client();
  const invitation = await client.testLinks.invite(
    testId,
    testLinkId,
    dropUndefined({
      ...candidateFields(o, email, name),
      sendEmail: o.sendEmail ? (1 as const) : undefined,
    }),
  );
  await showInvitation(ctx, invitation, email, `through link ${testLinkId}`);
  return 0;
}
