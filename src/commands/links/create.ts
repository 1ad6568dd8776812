import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { refusePastEnd } from "../../parse/dates.js";
import { resolveTestId } from "../shared/options.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { showLink } from "./show.js";
import {
  DEFAULTS,
  type LinkSpec,
  linkFlags,
  missingFlags,
  rejectConflicts,
  specFromFlags,
  toBody,
} from "./spec.js";

const flags = linkFlags(true);

export default verb({
  summary: "Create a link; asks for what is missing when run in a terminal, with a summary before creating",
  flags,
  examples: [
    "assess links create",
    "assess links create --test 1001 --name 'Campus 2026' --type email --schedule validityindays --validity-days 7 --timezone 1720",
    "assess links create --test 1001 --name 'Open day' --type open --api-link --schedule timebound --start 2026-12-01 --end 2026-12-31 --timezone 1720 --proctoring image",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const flags = specFromFlags(o);
  refusePastEnd(flags.end);
  const missing = [...(o.test === undefined ? ["--test <testId>"] : []), ...missingFlags(flags)];
  if (missing.length > 0 && !ctx.canPrompt) {
    throw new UsageError(
      `Missing ${missing.join(", ")}`,
      "Pass them as options (prompts are off: --no-input, CI, or not a terminal); `assess links create --help` shows examples.",
    );
  }

  const testId = await resolveTestId(ctx, o.test);
  let spec: LinkSpec = { ...DEFAULTS, ...flags };
  if (missing.length > 0) {
    const { runLinkWizard } = await import("./wizard.js");
    spec = { ...DEFAULTS, ...(await runLinkWizard(ctx, testId, flags)) };
  }
  rejectConflicts(spec, flags);

  const client = await ctx.client();
  const link = await client.testLinks.create(testId, toBody(spec));
  if (ctx.unreadAnswer(link)) return 0;
  ctx.success(`Created test link ${link.testLinkId} "${link.testLinkName ?? spec.name}" for test ${testId}`);
  await showLink(ctx, link);
  return 0;
}
