import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { refusePastEnd } from "../../parse/dates.js";
import type * as z from "../../parse/zod.js";
import { resolveTestId } from "../shared/options.js";
import { showLink } from "./show.js";
import {
  DEFAULTS,
  type LinkSpec,
  linkOptions,
  missingFlags,
  rejectConflicts,
  specFromFlags,
  toBody,
} from "./spec.js";

export const options = linkOptions;

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
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
