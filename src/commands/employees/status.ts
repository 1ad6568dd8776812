import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { id, parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { composeBody } from "./body.js";

/**
 * The statuses `employees status --help` documents, checked here (exit 2, nothing sent) as every documented
 * value is.
 */
const KNOWN_STATUSES = ["Active", "Inactive", "OnLeave", "Exited"];

export const options = z.object({ set: z.array(z.string()).optional() });
export const args = z.tuple([
  id(),
  parsed((text) => {
    const wanted = text.trim();
    if (wanted === "") throw new UsageError("Missing <status>", `Use one of ${KNOWN_STATUSES.join(", ")}`);
    const known = canonical(wanted);
    if (known === undefined) {
      throw new UsageError(
        `<status> must be one of ${KNOWN_STATUSES.join(", ")} (case and dashes don't matter), got "${wanted}"`,
        "Nothing was sent.",
      );
    }
    return known;
  }),
]);

export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [employeeId, known]: z.infer<typeof args>,
): Promise<number> {
  const body = await composeBody(o, { status: known }, ctx.io.stdin);
  const client = await ctx.client();
  const answer = await client.employees.setStatus(employeeId, body);
  ctx.success(`Employee ${employeeId} is now ${String(answer.status ?? body.status)}`);
  await ctx.out.record(answer);
  return 0;
}

/** `inactive`, `on-leave`, `ON_LEAVE` → the service's spelling; the service compares case-sensitively. */
function canonical(value: string): string | undefined {
  const squash = (text: string) => text.toLowerCase().replace(/[\s_-]+/g, "");
  return KNOWN_STATUSES.find((known) => squash(known) === squash(value));
}
