import type { Context } from "../../context.js";
import { field } from "../../fields.js";
import type { Column } from "../../output/output.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
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

export const options = z.object({ withSkills: z.boolean().optional() });
export const args = z.tuple([id()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [employeeId]: z.infer<typeof args>) {
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
