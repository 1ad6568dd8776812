import type { Writable } from "node:stream";

const GUARDED = new WeakSet<Writable>();
/** Streams whose reader went away (process.stdout is never destroyed: its `destroy` leaves fd 1 open). */
const GONE = new WeakSet<Writable>();

/**
 * `assess attempts list | head -2`: once head exits, a write fails with EPIPE (an uncaught exception). Like
 * gh, we stop writing instead and the command ends as it would have. Any other write error is rethrown.
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

export function isClosed(stream: Writable): boolean {
  return GONE.has(stream) || stream.destroyed || stream.writableEnded;
}
