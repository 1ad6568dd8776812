import type { Handler } from "../shared/kit.js";
import { parseId, resolveTestId } from "../shared/options.js";
import { showLink } from "./show.js";

/**
 * The state transition of API.md §3: the update operation with testLinkStatus alone, so no other setting
 * of the link is touched. The link is read first: one already in that state is said to be so, and left alone.
 */
export function statusHandler(status: "active" | "inactive"): Handler {
  return async (ctx, [idArg], o) => {
    const testLinkId = parseId(idArg, "testLinkId");
    const testId = await resolveTestId(ctx, o.test);
    const api = await ctx.api();
    const current = await api.getLink(testId, testLinkId);
    if (
      String(current.testLinkStatus ?? "")
        .trim()
        .toLowerCase() === status
    ) {
      ctx.info(`Test link ${testLinkId} of test ${testId} is already ${status}; nothing was sent.`);
      await showLink(ctx, current);
      return 0;
    }
    const link = await api.updateLink(testId, testLinkId, { testLinkStatus: status });
    ctx.success(`Test link ${testLinkId} of test ${testId} is now ${link.testLinkStatus ?? status}`);
    await showLink(ctx, link);
    return 0;
  };
}
