import type { Context } from "../../context.js";
import { resolveTestId } from "../shared/options.js";
import { showLink } from "./show.js";
import { specFromLink } from "./spec.js";

/** `links activate|deactivate`: an update of testLinkStatus alone, unless the link is already so. */
export async function setLinkStatus(
  ctx: Context,
  test: number | undefined,
  testLinkId: number,
  status: "active" | "inactive",
): Promise<number> {
  const testId = await resolveTestId(ctx, test);
  ctx.planWithReads(`Reading test link ${testLinkId} to know whether it would change`);
  const client = await ctx.client();
  const current = await client.testLinks.get(testId, testLinkId);
  if (specFromLink(current).status === status) {
    ctx.info(`Test link ${testLinkId} of test ${testId} is already ${status}; nothing was sent.`);
    await showLink(ctx, current);
    return 0;
  }
  const link = await client.testLinks.update(testId, testLinkId, { testLinkStatus: status });
  if (ctx.unreadAnswer(link)) return 0;
  ctx.success(`Test link ${testLinkId} of test ${testId} is now ${link.testLinkStatus ?? status}`);
  await showLink(ctx, link);
  return 0;
}
