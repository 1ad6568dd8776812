/** `reports pdf`: the PDF streamed as it arrives, never held whole, into a file or to a redirected stdout. */
import type { Writable } from "node:stream";
import type { Download } from "../../api/transport.js";
import type { Context } from "../../context.js";
import { CliError, ExitCode, UsageError } from "../../errors.js";
import { AtomicFile, checkTarget, commitOrDiscard } from "../../files.js";
import { isClosed, readerGone } from "../../output/pipe.js";
import { arg, flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  out: flag.text(
    "<file.pdf>",
    "where to save it; `-` is stdout (default: stdout when it is redirected or piped, else report-<id>.pdf)",
  ),
  force: flag.bool("overwrite an existing file"),
};

export default verb({
  summary: "Save the PDF report of one attempt, or write it to a redirected stdout",
  args: [arg.id("<testInvitationId>", "the attempt's id")],
  flags,
  examples: [
    "assess reports pdf 100001",
    "assess reports pdf 100001 > report.pdf",
    "assess reports pdf 100001 --out r.pdf",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [id]: [number]): Promise<number> {
  // Without --out: stdout when it is redirected or piped, else a file; with --json the JSON goes there instead.
  const toStdout = o.out === undefined && !ctx.io.stdout.isTTY && !ctx.out.isJson;
  const out = o.out ?? (toStdout ? "-" : `report-${id}.pdf`);
  const force = o.force === true;
  if (out === "-" && ctx.io.stdout.isTTY) {
    throw new UsageError(
      "Refusing to write a PDF to the terminal",
      "Redirect stdout (`> report.pdf`) or use --out report.pdf",
    );
  }
  // A missing folder or a file in the way is refused before anything is fetched.
  if (out !== "-") checkTarget(out, { option: "--out", force });
  const client = await ctx.client();
  if (out === "-") {
    const stdout = new ToStdout(ctx.io.stdout);
    try {
      await client.reports.pdf(id, stdout);
    } catch (error) {
      // The reader went away (`| head -c 100`): the rest is not wanted, and that is no failure.
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
  const bytes = await commitOrDiscard(file, () => client.reports.pdf(id, file));
  ctx.success(`Saved the report of attempt ${id} to ${out} (${bytes} bytes)`);
  if (ctx.out.isJson) ctx.out.json({ testInvitationId: id, file: out, bytes });
  return 0;
}

/** A CliError, so that the client ends the request with it. */
class ReaderGone extends CliError {
  constructor() {
    super("stdout was closed", { exitCode: ExitCode.ok });
  }
}

const WAKE_EVENTS = ["drain", "close", "error"];

/**
 * Bytes on stdout cannot be taken back: once some are written, a broken download is not retried. Node never
 * leaves process.stdout destroyed (after EPIPE or ECONNRESET it emits 'error' and 'close'), so its events say the reader
 * has gone; `destroyed` says it for other streams.
 */
class ToStdout implements Download {
  written = 0;
  private gone = false;
  private failure?: Error;
  private readonly onError = (error: NodeJS.ErrnoException) => {
    if (readerGone(error)) this.gone = true;
    else this.failure ??= error;
  };
  private readonly onClose = () => {
    this.gone = true;
  };

  constructor(private readonly stdout: NodeJS.WritableStream & Writable) {
    stdout.on("error", this.onError);
    stdout.on("close", this.onClose);
  }

  release(): void {
    this.stdout.off("error", this.onError);
    this.stdout.off("close", this.onClose);
  }

  begin(): (chunk: Uint8Array) => void | Promise<void> {
    return (chunk) => {
      this.check();
      this.written += chunk.length;
      // A slow reader slows the download instead of filling memory.
      if (!this.stdout.write(chunk)) return this.drained();
    };
  }

  canRestart(): boolean {
    return this.written === 0;
  }

  private check(): void {
    if (this.gone || isClosed(this.stdout)) throw new ReaderGone();
    if (this.failure) {
      throw new CliError(`Writing the PDF to stdout failed: ${this.failure.message}`, {
        cause: this.failure,
      });
    }
  }

  /** Resolves when stdout can take more; rejects when it never will ('drain' never comes once the reader went). */
  private async drained(): Promise<void> {
    const stream = this.stdout;
    if (!this.gone && !this.failure && !isClosed(stream)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          for (const event of WAKE_EVENTS) stream.off(event, done);
          resolve();
        };
        for (const event of WAKE_EVENTS) stream.on(event, done);
      });
    }
    this.check();
  }
}

/** The PDF written beside the target and moved into place; a retry starts a new file. */
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
    this.guard(() => this.file?.commit());
  }

  /** Drops the temporary file; a committed or discarded one is left alone. */
  discard(): void {
    this.file?.discard();
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
