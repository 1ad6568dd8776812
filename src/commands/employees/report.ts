import { SECTION_COLUMNS } from "../reports/get.js";
import type { Handler } from "../shared/kit.js";
import { parseId, resolveTestId } from "../shared/options.js";

const report: Handler = async (ctx, [idArg], o) => {
  const employeeId = parseId(idArg, "employeeId");
  const testId = await resolveTestId(ctx, o.test);
  const api = await ctx.api();
  const result = await api.getEmployeeReport(employeeId, testId);
  await ctx.out.recordWithList(result, "sections", SECTION_COLUMNS);
  return 0;
};
export default report;
