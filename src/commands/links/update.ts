import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { refusePastEnd } from "../../parse/dates.js";
import { resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { linkArg, showLink } from "./show.js";
import {
  diffBodies,
  linkFlags,
  missingFlags,
  rejectConflicts,
  specFromFlags,
  specFromLink,
  toBody,
} from "./spec.js";

/** `links update`: reads the link, applies the given flags, and sends the whole result. */
const flags = linkFlags(false);

export default verb({
  summary: "Change only the given fields of a link: reads it, applies the options, sends the result",
  args: [linkArg()],
  flags,
  examples: [
    "assess links update 3001 --test 1001 --validity-days 14",
    "assess links update 3001 --test 1001 --schedule timebound --start +1d --end +30d --dry-run",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [testLinkId]: [number]) {
  const flags = specFromFlags(o);
  if (Object.keys(flags).length === 0) {
    throw new UsageError(
      "Nothing to change",
      "Pass at least one option to change (see `assess links update --help`); `links activate|deactivate` switch the status.",
    );
  }
  const testId = await resolveTestId(ctx, o.test);
  ctx.planWithReads(`Reading test link ${testLinkId} to show what would change`);
  const client = await ctx.client();
  const current = await client.testLinks.get(testId, testLinkId);
  const before = specFromLink(current);
  const after = { ...before, ...flags };
  rejectConflicts(after, flags);
  refusePastEnd(flags.end);
  const missing = missingFlags(after);
  if (missing.length > 0) {
    throw new UsageError(
      `Missing ${missing.join(", ")}: test link ${testLinkId} has no value of its own to keep`,
      "Nothing was sent.",
    );
  }

  const body = toBody(after);
  const changes = diffBodies(toBody(before), body);
  if (changes.length === 0) {
    ctx.info(`Test link ${testLinkId} already has these values; nothing was sent.`);
    await showLink(ctx, current);
    return 0;
  }
  if (ctx.dryRun) {
    const show = (value: unknown) => (value === undefined ? "(not sent)" : JSON.stringify(value));
    ctx.info(`Changes to test link ${testLinkId}:`);
    for (const change of changes) ctx.info(`  ${change.path}: ${show(change.from)} → ${show(change.to)}`);
  }
  const link = await client.testLinks.update(testId, testLinkId, body);
  if (ctx.unreadAnswer(link)) return 0;
  ctx.success(
    `Updated test link ${testLinkId} of test ${testId}: ${changes.map((c) => c.path.split(".").at(-1)).join(", ")}`,
  );
  await showLink(ctx, link);
  return 0;
}
