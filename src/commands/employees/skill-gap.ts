import type { Context } from "../../context.js";
import { field, isRecord, numberOf, textOf } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";
import { verb } from "../shared/verb.js";
import { employeeArg } from "./body.js";
import { jobOf } from "./records.js";

const GAP_COLUMNS: Column[] = [
  { key: "skillName", header: "SKILL" },
  { key: "requiredLevel", header: "REQUIRED" },
  { key: "currentLevel", header: "CURRENT" },
  { key: "gap", header: "GAP" },
  { key: "status", header: "STATUS" },
];

/** Every expected skill of the employee's job: the gaps first (largest first), then the skills already met. */
export function gapRows(answer: Row) {
  const listed = (keys: string[]) =>
    (keys.map((k) => field(answer, k)).find(Array.isArray) ?? []) as unknown[];
  return [
    // `result`: a bare list answered (the API layer keeps an answer that is no record under `result`).
    ...listed(["gaps", "skillGaps", "items", "skills", "result"]).flatMap(
      (entry) => gapRow(entry, "gap") ?? [],
    ),
    ...listed(["matched", "met", "metSkills"]).flatMap((entry) => gapRow(entry, "met") ?? []),
  ].sort((a, b) => b.gap - a.gap || a.skillName.localeCompare(b.skillName));
}

function gapRow(entry: unknown, listedAs: "gap" | "met") {
  const skillName = textOf(entry, "skillName", "name", "skill");
  if (!isRecord(entry) || !skillName) return undefined;
  const required = numberOf(entry, "requiredLevel", "expectedLevel", "required", "skillRequiredProficiency");
  const current = numberOf(entry, "currentLevel", "level", "current", "weightedProficiencyScore");
  const gap = numberOf(entry, "gap") ?? Math.max(0, (required ?? 0) - (current ?? 0));
  const status = listedAs === "gap" && gap > 0 ? "gap" : "met";
  return { ...entry, skillName, requiredLevel: required, currentLevel: current, gap, status };
}

export default verb({
  summary: "Compare an employee's skills with those their job code expects",
  args: [employeeArg()],
  examples: ["assess employees skill-gap 501", "assess employees skill-gap 501 --json"],
  run,
});

async function run(ctx: Context, _o: unknown, [employeeId]: [number]) {
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
