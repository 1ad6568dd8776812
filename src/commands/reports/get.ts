import type { Report } from "../../api/schemas.js";
import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

export const SECTION_COLUMNS = [
  { key: "sectionName", header: "SECTION" },
  { key: "candidateScore", header: "SCORE" },
  { key: "sectionScore", header: "OUT OF" },
  { key: "noOfQue", header: "QUESTIONS" },
  { key: "sectionTimeTaken", header: "TIME TAKEN" },
];

const get: Handler = async (ctx, [idArg], o) => {
  const api = await ctx.api();
  const report: Report = await api.getReport(
    parseId(idArg, "testInvitationId"),
    o.type ? (Number(o.type) as 1 | 2 | 3) : undefined,
  );
  await ctx.out.recordWithList(report, "sections", SECTION_COLUMNS);
  return 0;
};
export default get;
