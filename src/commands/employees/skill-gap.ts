import type { Context } from "../../context.js";
import { field } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { jobOf, number, record, text } from "./records.js";

export interface GapRow extends Row {
  skillName: string;
  requiredLevel?: number;
  currentLevel?: number;
  gap: number;
  status: "gap" | "met";
}

const GAP_COLUMNS: Column[] = [
  { key: "skillName", header: "SKILL" },
  { key: "requiredLevel", header: "REQUIRED" },
  { key: "currentLevel", header: "CURRENT" },
  { key: "gap", header: "GAP" },
  { key: "status", header: "STATUS" },
];

/** Every expected skill of the employee's job: the gaps first (largest first), then the skills already met. */
export function gapRows(answer: Row): GapRow[] {
  const listed = (keys: string[]) =>
    (keys.map((k) => field(answer, k)).find(Array.isArray) ?? []) as unknown[];
  const rows: GapRow[] = [];
  for (const [items, listedAs] of [
    [listed(["gaps", "skillGaps", "items", "skills"]), "gap"],
    [listed(["matched", "met", "metSkills"]), "met"],
  ] as const) {
    for (const item of items) {
      const entry = record(item);
      const skillName =
        text(field(entry, "skillName")) ?? text(field(entry, "name")) ?? text(field(entry, "skill"));
      if (!entry || !skillName) continue;
      const requiredLevel = number(
        field(entry, "requiredLevel") ??
          field(entry, "expectedLevel") ??
          field(entry, "required") ??
          field(entry, "skillRequiredProficiency"),
      );
      const currentLevel = number(
        field(entry, "currentLevel") ??
          field(entry, "level") ??
          field(entry, "current") ??
          field(entry, "weightedProficiencyScore"),
      );
      const gap = number(field(entry, "gap")) ?? Math.max(0, (requiredLevel ?? 0) - (currentLevel ?? 0));
      rows.push({
        ...entry,
        skillName,
        requiredLevel,
        currentLevel,
        gap,
        status: listedAs === "gap" && gap > 0 ? "gap" : "met",
      });
    }
  }
  return rows.sort((a, b) => b.gap - a.gap || a.skillName.localeCompare(b.skillName));
}

export const options = z.object({});
export const args = z.tuple([id()]);

export async function run(ctx: Context, _o: unknown, [employeeId]: z.infer<typeof args>): Promise<number> {
  const client = await ctx.client();
  const answer = await client.employees.skillGap(employeeId);
  if (ctx.out.isJson) {
    await ctx.out.record(answer);
    return 0;
  }
  const rows = gapRows(answer);
  const gaps = rows.filter((r) => r.status === "gap");
  const job = jobOf(answer);
  if (rows.length === 0) {
    ctx.info(
      job
        ? `No expected skills are known for ${job}, so there is no gap to show.`
        : `Employee ${employeeId} has no job code, so there are no expected skills to compare with.`,
    );
  } else {
    ctx.info(
      `${job ? `${job}: ` : ""}${gaps.length} of ${rows.length} expected skill${rows.length === 1 ? "" : "s"} below the required level` +
        (gaps.length > 0
          ? `; \`assess employees assign-learning ${employeeId} --from-gap\` assigns learning for them`
          : ""),
    );
  }
  await ctx.out.list(rows, GAP_COLUMNS);
  return 0;
}
