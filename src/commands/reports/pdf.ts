import type { Download } from "../../api/client.js";
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
  // The PDF goes where it belongs as it arrives, never held whole: a report may be large, and a server
  // that streams without end meets the download cap (src/api/client.ts), not the machine's memory.
  if (out === "-") {
    const stdout = new ToStdout(ctx.io.stdout);
    try {
      await api.getReportPdf(id, stdout);
    } catch (error) {
      if (stdout.written === 0 || !(error instanceof CliError)) throw error;
      throw new CliError(
        `${error.message}; ${stdout.written} bytes of the PDF had gone to stdout: what they make is not a whole PDF`,
        { suggestion: error.suggestion, cause: error },
      );
    }
    return 0;
  }
  const file = new PdfFile(out, force);
  let bytes: number;
  try {
    bytes = await api.getReportPdf(id, file);
    file.commit();
  } catch (error) {
    file.discard();
    throw error;
  }
  ctx.success(`Saved the report of attempt ${id} to ${out} (${bytes} bytes)`);
  if (ctx.out.isJson) ctx.out.json({ testInvitationId: id, file: out, bytes });
  return 0;
};
export default pdf;

/** Bytes on stdout cannot be taken back: once some are written, a download that breaks off is not retried. */
class ToStdout implements Download {
  written = 0;

  constructor(private readonly stdout: NodeJS.WritableStream) {}

  begin(): (chunk: Uint8Array) => void | Promise<void> {
    return (chunk) => {
      this.written += chunk.length;
      // A slow reader of the pipe slows the download instead of filling memory (a closed one ends the wait).
      if (!this.stdout.write(chunk)) return drained(this.stdout);
    };
  }

  canRestart(): boolean {
    return this.written === 0;
  }
}

function drained(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
  });
}

/**
 * The PDF written beside the target and moved into place: never through a link, never half a file. Each
 * attempt of the download (a retry starts over) writes a new temporary file; a failed one leaves none.
 */
class PdfFile implements Download {
  private file?: AtomicFile;

  constructor(
    private readonly out: string,
    private readonly force: boolean,
  ) {}

  begin(): (chunk: Uint8Array) => void {
    this.discard();
    let file: AtomicFile;
    try {
      file = new AtomicFile(this.out, this.force);
    } catch (error) {
      throw new UsageError(
        `--out ${this.out}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        "Check that its folder is writable, or choose another --out.",
      );
    }
    this.file = file;
    return (chunk) => this.guard(() => file.write(chunk));
  }

  commit(): void {
    const file = this.file;
    if (!file) return;
    this.guard(() => file.commit());
    this.file = undefined;
  }

  discard(): void {
    this.file?.discard();
    this.file = undefined;
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(
        `--out ${this.out}: writing it failed (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was saved`,
        { suggestion: "Check the free space of its folder, then run the command again.", cause: error },
      );
    }
  }
}
