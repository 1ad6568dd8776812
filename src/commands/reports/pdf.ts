import { writeFile } from "node:fs/promises";
import { UsageError } from "../../errors.js";
import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const pdf: Handler = async (ctx, [idArg], o) => {
  const id = parseId(idArg, "testInvitationId");
  const out = typeof o.out === "string" ? o.out : `report-${id}.pdf`;
  // Binary on a terminal garbles it; only a pipe or a file gets the bytes.
  if (out === "-" && ctx.io.stdout.isTTY) {
    throw new UsageError(
      "Refusing to write a PDF to the terminal",
      "Redirect stdout (`> report.pdf`) or use --out report.pdf",
    );
  }
  const api = await ctx.api();
  const bytes = await api.getReportPdf(id);
  if (out === "-") {
    ctx.io.stdout.write(bytes);
    return 0;
  }
  try {
    await writeFile(out, bytes, { flag: o.force ? "w" : "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new UsageError(`${out} already exists`, "Pass --force to overwrite it, or choose another --out");
    }
    throw error;
  }
  ctx.success(`Saved the report of attempt ${id} to ${out} (${bytes.length} bytes)`);
  if (ctx.out.isJson) ctx.out.json({ testInvitationId: id, file: out, bytes: bytes.length });
  return 0;
};
export default pdf;
