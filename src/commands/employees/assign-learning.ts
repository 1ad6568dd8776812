import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import type { Row } from "../../output/output.js";
import { toServiceTime } from "../../parse/dates.js";
import * as z from "../../parse/zod.js";
import { withSent } from "../shared/fields.js";
import { flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { bodyFlags, bodyNotes, composeBody, employeeArg } from "./body.js";
import { gapRows } from "./skill-gap.js";

const flags = {
  resource: flag.list("<id>", "a learning resource id (repeatable, or comma-separated)", z.string()),
  skill: flag.list(
    "<name>",
    "a skill to learn; the service picks resources for it (repeatable, or comma-separated)",
    z.string(),
  ),
  fromGap: flag.bool("add every skill of the employee's skill gap (see `employees skill-gap`)"),
  due: flag.date("end", "due date (a bare date means the end of that day)"),
  note: flag.text("<text>", "a note for the employee"),
  ...bodyFlags("body.json"),
};

export default verb({
  summary: "Assign learning resources to an employee, by resource id or by skill",
  args: [employeeArg()],
  flags,
  notes: bodyNotes(
    '{"learningResourceIds": ["lr-104"], "skills": ["SQL"], "dueDate": "2026-12-31T23:59:59Z", "note": "..."}',
    "Fields without a value are left out.",
  ),
  examples: [
    "assess employees assign-learning 501 --resource lr-104 --due 2026-12-31",
    "assess employees assign-learning 501 --from-gap --note 'Before the Q3 review'",
    "assess employees assign-learning 501 --file body.json --dry-run",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [employeeId]: [number]) {
  // A resource or skill given twice is asked for once.
  const resources = [...new Set(o.resource ?? [])];
  const client = await ctx.client();
  const gaps = o.fromGap
    ? gapRows(await client.employees.skillGap(employeeId)).filter((row) => row.status === "gap")
    : [];
  const skills = unique([...(o.skill ?? []), ...gaps.map((gap) => gap.skillName)]);
  if (o.fromGap && gaps.length === 0 && resources.length === 0 && skills.length === 0) {
    ctx.info(`Employee ${employeeId} has no skill gaps; nothing to assign.`);
    return 0;
  }
  const body = await composeBody(
    o,
    {
      learningResourceIds: resources.length > 0 ? resources : undefined,
      skills: skills.length > 0 ? skills : undefined,
      dueDate: o.due && toServiceTime(o.due),
      note: o.note,
    },
    ctx.io.stdin,
  );
  if (o.file === undefined && o.set === undefined && resources.length === 0 && skills.length === 0) {
    throw new UsageError(
      "Nothing to assign",
      "Pass --resource <id>, --skill <name>, --from-gap, or --file body.json (see `assess employees assign-learning --help`).",
    );
  }

  const answer = await client.employees.assignLearning(employeeId, body);
  const assigned = Array.isArray(answer.assigned) ? (answer.assigned as Row[]) : undefined;
  const id = answer.assignmentId;
  ctx.success(
    `Assigned ${assigned ? `${assigned.length} learning item${assigned.length === 1 ? "" : "s"}` : "learning"} to employee ${employeeId}` +
      (id === undefined ? "" : ` (assignment ${String(id)})`),
  );
  if (ctx.out.isJson || !assigned) await ctx.out.record(withSent(ctx.out, answer, { employeeId, ...body }));
  else
    await ctx.out.list(assigned, [
      { key: "learningResourceId", header: "RESOURCE" },
      { key: "title", header: "TITLE" },
      { key: "skillName", header: "SKILL" },
    ]);
  return 0;
}

/** Skill names compare without case, as the skill gap's are matched. */
function unique(names: string[]): string[] {
  const byKey = new Map<string, string>();
  for (const name of names) if (!byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
  return [...byKey.values()];
}
