import { CliError, UsageError } from "../../errors.js";
import { AtomicFile, checkTarget } from "../../files.js";
import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const pdf: Handler = async (ctx, [idArg], o) => {
  const id = parseId(idArg, "testInvitationId");
  const out = typeof o.out === "string" ? o.out : `report-${id}.pdf`;
  const force = o.force === true;
  // Binary on a terminal garbles it; only a pipe or a file gets the bytes.
  if (out === "-" && ctx.io.stdout.isTTY) {
    throw new UsageError(
      "Refusing to write a PDF to the terminal",
      "Redirect stdout (`> report.pdf`) or use --out report.pdf",
    );
  }
  // Before the download: a missing folder or a file in the way is the user's to fix, and nothing is fetched.
  if (out !== "-") checkTarget(out, { option: "--out", force });
  const api = await ctx.api();
  const bytes = await api.getReportPdf(id);
  if (out === "-") {
    ctx.io.stdout.write(bytes);
    return 0;
  }
  writePdf(out, bytes, force);
  ctx.success(`Saved the report of attempt ${id} to ${out} (${bytes.length} bytes)`);
  if (ctx.out.isJson) ctx.out.json({ testInvitationId: id, file: out, bytes: bytes.length });
  return 0;
};
export default pdf;

/** Written beside the target and moved into place: never through a link, never half a file. */
function writePdf(out: string, bytes: Uint8Array, force: boolean): void {
  let file: AtomicFile;
  try {
    file = new AtomicFile(out, force);
  } catch (error) {
    throw new UsageError(
      `--out ${out}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      "Check that its folder is writable, or choose another --out.",
    );
  }
  try {
    file.write(bytes);
    file.commit();
  } catch (error) {
    file.discard();
    if (error instanceof CliError) throw error;
    throw new CliError(
      `--out ${out}: writing it failed (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was saved`,
      { suggestion: "Check the free space of its folder, then run the command again.", cause: error },
    );
  }
}
