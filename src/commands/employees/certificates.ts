import { field } from "../../fields.js";
import type { Column, Row } from "../../output/output.js";
import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";
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
  get: (row: Row) => skillsOf(row).map((s) => s.skillName),
};

const certificates: Handler = async (ctx, [idArg], options) => {
  const employeeId = parseId(idArg, "employeeId");
  const withSkills = options.withSkills === true;
  const api = await ctx.api();
  const list = await api.listCertificates(employeeId, withSkills);
  const count = await ctx.out.list(
    list,
    withSkills ? [...CERTIFICATE_COLUMNS, CERTIFICATE_SKILLS_COLUMN] : CERTIFICATE_COLUMNS,
  );
  if (count === 0) {
    ctx.info(
      `Employee ${employeeId} has no certificates; \`assess employees add-certificate ${employeeId} --title ...\` adds one.`,
    );
  }
  return 0;
};
export default certificates;
