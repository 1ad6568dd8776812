import { SECTION_COLUMNS } from "../reports/get.js";
import type { Handler } from "../shared/kit.js";
import { parseId, resolveTestId } from "../shared/options.js";

const report: Handler = async (ctx, [idArg], o) => {
  const employeeId = parseId(idArg, "employeeId");
  const testId = await resolveTestId(ctx, o.test);
  const api = await ctx.api();
  const result = await api.getEmployeeReport(employeeId, testId);
  if (ctx.out.format === "table" && !ctx.flags.fields) {
    const { sections, ...summary } = result;
    await ctx.out.record(summary);
    if (sections && sections.length > 0) await ctx.out.list(sections, SECTION_COLUMNS);
    return 0;
  }
  await ctx.out.record(result);
  return 0;
};
export default report;
