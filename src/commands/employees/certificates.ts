import type { Context } from "../../context.js";
import { field } from "../../fields.js";
import type { Column } from "../../output/output.js";
import { flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { employeeArg } from "./body.js";
import { skillsOf } from "./records.js";

export const CERTIFICATE_COLUMNS: Column[] = [
  { key: "certificateId", header: "ID", get: (row) => field(row, "certificateId") ?? field(row, "id") },
  { key: "title", header: "TITLE" },
  { key: "issuer", header: "ISSUER" },
  { key: "issueDate", header: "ISSUED" },
  { key: "expiryDate", header: "EXPIRES" },
];

/** The skills the service inferred from a certificate, by name. */
export const CERTIFICATE_SKILLS_COLUMN: Column = {
  key: "skills",
  header: "SKILLS",
  get: (row) => skillsOf(row).map((s) => s.skillName),
};

const flags = { withSkills: flag.bool("include the skills inferred from each certificate") };

export default verb({
  summary: "List an employee's certificates",
  args: [employeeArg()],
  flags,
  examples: ["assess employees certificates 501", "assess employees certificates 501 --with-skills --json"],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [employeeId]: [number]) {
  const client = await ctx.client();
  const list = await client.employees.certificates.list(employeeId, { includeSkills: o.withSkills === true });
  const columns = o.withSkills ? [...CERTIFICATE_COLUMNS, CERTIFICATE_SKILLS_COLUMN] : CERTIFICATE_COLUMNS;
  if ((await ctx.out.list(list, columns)) === 0) {
    ctx.info(
      `Employee ${employeeId} has no certificates; \`assess employees add-certificate ${employeeId} --title ...\` adds one.`,
    );
  }
  return 0;
}
