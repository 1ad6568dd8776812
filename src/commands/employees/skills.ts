import type { Context } from "../../context.js";
import { field } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";
import { verb } from "../shared/verb.js";
import { employeeArg } from "./body.js";
import { EMPLOYEE_COLUMNS, skillsOf } from "./records.js";

const SUMMARY_COLUMNS: Column[] = [...EMPLOYEE_COLUMNS, { key: "updatedAt", header: "UPDATED" }];

const SKILL_COLUMNS: Column[] = [
  { key: "category", header: "CATEGORY" },
  { key: "skillName", header: "SKILL" },
  { key: "level", header: "LEVEL" },
  { key: "proficiency", header: "PROFICIENCY" },
  { key: "source", header: "SOURCE" },
];

export default verb({
  summary: "Show an employee's skills profile, grouped by category with level, proficiency and source",
  args: [employeeArg()],
  examples: [
    "assess employees skills 501",
    "assess employees skills 501 --json",
    "assess employees skills 501 -o csv > skills.csv",
  ],
  run,
});

/** On a terminal the employee, then their skills by category; tsv/csv one row per skill; --json the answer as is. */
async function run(ctx: Context, _o: unknown, [employeeId]: [number]) {
  const client = await ctx.client();
  const profile = await client.employees.skillsProfile(employeeId);
  if (ctx.out.isJson) {
    await ctx.out.record(profile);
    return 0;
  }
  // By category (uncategorised last), then strongest first, then by name.
  const other = "\uffff";
  const rows: Row[] = skillsOf(profile)
    .sort(
      (a, b) =>
        (a.category ?? other).localeCompare(b.category ?? other) ||
        (b.level ?? 0) - (a.level ?? 0) ||
        a.skillName.localeCompare(b.skillName),
    )
    .map((skill) => ({ employeeId, ...skill }));
  if (ctx.out.format === "table" && !ctx.flags.fields) {
    await ctx.out.record(
      profile,
      SUMMARY_COLUMNS.filter((c) => c.get || field(profile, c.key) !== undefined),
    );
    const firstOfGroup = rows.map((row, i) => ({
      ...row,
      category: row.category !== rows[i - 1]?.category ? row.category : "",
    }));
    // Level, proficiency and source are shown where the service gives them.
    const given = SKILL_COLUMNS.filter((c) => rows.some((row) => row[c.key] !== undefined));
    await ctx.out.list(firstOfGroup, given);
  } else {
    await ctx.out.list(rows, [{ key: "employeeId", header: "EMPLOYEE" }, ...SKILL_COLUMNS]);
  }
  if (rows.length === 0) {
    ctx.info(
      `No skills recorded for employee ${employeeId} yet: \`assess employees upload-resume\` and \`add-certificate\` add some.`,
    );
  }
  return 0;
}
