import type { Writable } from "node:stream";
import type { Download } from "../../api/client.js";
import type { Context } from "../../context.js";
import { CliError, ExitCode, UsageError } from "../../errors.js";
import { AtomicFile, checkTarget } from "../../files.js";
import { isClosed } from "../../output/pipe.js";
import { id as idFlag } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";

export const options = z.object({ out: z.string().optional(), force: z.boolean().optional() });
export const args = z.tuple([idFlag()]);

export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [id]: z.infer<typeof args>,
): Promise<number> {
  // Without --out: a file on a terminal, stdout when it is redirected or piped (`> r.pdf`, `| lpr`), as
  // `--out -` does; with --json the JSON that describes the saved file goes there instead.
  const toStdout = o.out === undefined && !ctx.io.stdout.isTTY && !ctx.out.isJson;
  const out = o.out ?? (toStdout ? "-" : `report-${id}.pdf`);
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
  const client = await ctx.client();
  // The PDF goes where it belongs as it arrives, never held whole: a report may be large, and a server
  // that streams without end meets the download cap (src/api/client.ts), not the machine's memory.
  if (out === "-") {
    const stdout = new ToStdout(ctx.io.stdout);
    try {
      await client.reports.pdf(id, stdout);
    } catch (error) {
      // The reader went away (`| head -c 100`): the rest is not wanted, and that is no failure (src/output/pipe.ts).
      if (error instanceof ReaderGone) return ExitCode.ok;
      if (stdout.written === 0 || !(error instanceof CliError)) throw error;
      throw new CliError(
        `${error.message}; ${stdout.written} bytes of the PDF had gone to stdout: what they make is not a whole PDF`,
        { suggestion: error.suggestion, cause: error },
      );
    } finally {
      stdout.release();
    }
    return 0;
  }
  const file = new PdfFile(out, force);
  let bytes: number;
  try {
    bytes = await client.reports.pdf(id, file);
    file.commit();
  } catch (error) {
    file.discard();
    throw error;
  }
  ctx.success(`Saved the report of attempt ${id} to ${out} (${bytes} bytes)`);
  if (ctx.out.isJson) ctx.out.json({ testInvitationId: id, file: out, bytes });
  return 0;
}

/** Stops the download when stdout's reader has gone: a CliError, so that the client ends the request with it. */
class ReaderGone extends CliError {
  constructor() {
    super("stdout was closed", { exitCode: ExitCode.ok });
  }
}

/**
 * Bytes on stdout cannot be taken back: once some are written, a download that breaks off is not retried.
 * When the reader goes away the download stops (ReaderGone). Node never leaves process.stdout destroyed
 * (after EPIPE it emits 'error' and 'close', then takes writes again, each failing), so its events say the
 * reader has gone; `destroyed` says it for other streams.
 */
class ToStdout implements Download {
  written = 0;
  private gone = false;
  private failure?: Error;
  private readonly onError = (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") this.gone = true;
    else this.failure ??= error;
  };
  private readonly onClose = () => {
    this.gone = true;
  };

  constructor(private readonly stdout: NodeJS.WritableStream & Writable) {
    stdout.on("error", this.onError);
    stdout.on("close", this.onClose);
  }

  /** Stops listening to stdout (the download is over). */
  release(): void {
    this.stdout.off("error", this.onError);
    this.stdout.off("close", this.onClose);
  }

  begin(): (chunk: Uint8Array) => void | Promise<void> {
    return (chunk) => {
      this.check();
      this.written += chunk.length;
      // A slow reader of the pipe slows the download instead of filling memory; one that goes away ends it.
      if (!this.stdout.write(chunk)) return this.drained();
    };
  }

  canRestart(): boolean {
    return this.written === 0;
  }

  /** Throws when nothing more can be written: ReaderGone, or the error writing met. */
  private check(): void {
    if (this.gone || isClosed(this.stdout)) throw new ReaderGone();
    if (this.failure) {
      throw new CliError(`Writing the PDF to stdout failed: ${this.failure.message}`, {
        cause: this.failure,
      });
    }
  }

  /**
   * Resolves when stdout can take more; rejects when it never will: 'drain' does not come to a stream whose
   * reader went away, also when its 'error' and 'close' came before the wait began.
   */
  private drained(): Promise<void> {
    const stream = this.stdout;
    return new Promise((resolve, reject) => {
      const done = () => {
        stream.off("drain", done);
        stream.off("close", done);
        stream.off("error", done);
        try {
          this.check();
          resolve();
        } catch (error) {
          reject(error);
        }
      };
      stream.on("drain", done);
      stream.on("close", done);
      stream.on("error", done);
      if (this.gone || this.failure || isClosed(stream)) done();
    });
  }
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
