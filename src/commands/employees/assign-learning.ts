import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import type { Row } from "../../output/output.js";
import { toServiceTime } from "../../parse/dates.js";
import { date, id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { composeBody } from "./body.js";
import { gapRows } from "./skill-gap.js";

export const options = z.object({
  resource: z.array(z.string()).optional(),
  skill: z.array(z.string()).optional(),
  fromGap: z.boolean().optional(),
  due: date("end").optional(),
  note: z.string().optional(),
  file: z.string().optional(),
  set: z.array(z.string()).optional(),
});
export const args = z.tuple([id()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [employeeId]: z.infer<typeof args>) {
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
  if (ctx.out.isJson || !assigned) await ctx.out.record(answer);
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
