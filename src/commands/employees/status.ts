import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { parsed } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { EMPLOYEE_STATUSES } from "../../spec/employee-statuses.js";
import { withSent } from "../shared/fields.js";
import { arg, flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { composeBody, employeeArg } from "./body.js";

/** The statuses `--help` documents, checked here (exit 2, nothing sent) as every documented value is. */
const KNOWN_STATUSES: readonly string[] = EMPLOYEE_STATUSES;
/** `inactive`, `on-leave`, `ON_LEAVE` → the service's spelling; the service compares case-sensitively. */
const squash = (text: string) => text.toLowerCase().replace(/[\s_-]+/g, "");

const status = parsed((text) => {
  const wanted = text.trim();
  if (wanted === "") throw new UsageError("Missing <status>", `Use one of ${KNOWN_STATUSES.join(", ")}`);
  const known = KNOWN_STATUSES.find((status) => squash(status) === squash(wanted));
  if (known) return known;
  throw new UsageError(
    `<status> must be one of ${KNOWN_STATUSES.join(", ")} (case and dashes don't matter), got "${wanted}"`,
    "Nothing was sent.",
  );
});

const flags = {
  set: flag.each("<key=value>", "add another body field (repeatable; dotted keys nest)", z.string()),
};

export default verb({
  summary: `Change an employee's status (${EMPLOYEE_STATUSES.join(", ")}; case and dashes don't matter)`,
  args: [employeeArg(), arg.of("<status>", "the new status", status)],
  flags,
  notes: 'Body sent by default (--set adds fields):\n  {"status": "Inactive"}\nSent with PATCH.',
  examples: ["assess employees status 501 Inactive", "assess employees status 501 on-leave --json"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [employeeId, known]: [number, string]) {
  const body = await composeBody(o, { status: known }, ctx.io.stdin);
  const client = await ctx.client();
  const answer = await client.employees.setStatus(employeeId, body);
  ctx.success(`Employee ${employeeId} is now ${String(answer.status ?? body.status)}`);
  await ctx.out.record(withSent(ctx.out, answer, { employeeId, ...body }));
  return 0;
}
