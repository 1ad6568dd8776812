import type { Writable } from "node:stream";

const GUARDED = new WeakSet<Writable>();
/** Streams whose reader went away. process.stdout is never destroyed (its `destroy` leaves fd 1 open). */
const GONE = new WeakSet<Writable>();

/**
 * `assess attempts list | head -2`: once head has its lines it exits, and the next write to the pipe fails
 * with EPIPE (Node ignores SIGPIPE), which a stream without an 'error' listener turns into an uncaught
 * exception: a stack trace and exit 1. Like gh, we stop writing instead: the failed write destroys the
 * stream, or is noted here (process.stdout is never destroyed), Output sees it and drops the rest, and the
 * command ends as it would have. A bulk run goes on to finish its chunks and its ledger; only its summary on
 * stdout is lost. Any other write error is rethrown as before.
 */
export function quietWhenClosed(stream: Writable): void {
  if (GUARDED.has(stream)) return;
  GUARDED.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") {
      GONE.add(stream);
      return;
    }
    throw error;
  });
}

/** The reader of `stream` went away (or it was closed): nothing more can reach it. */
export function isClosed(stream: Writable): boolean {
  return GONE.has(stream) || stream.destroyed || stream.writableEnded;
}
