import type { Writable } from "node:stream";

/** Streams whose reader went away (process.stdout is never destroyed: its `destroy` leaves fd 1 open). */
const GONE = new WeakSet<Writable>();

/**
 * `assess attempts list | head -2`: once head exits, a write fails with EPIPE (an uncaught exception); when
 * stdout is a socket (a parent process's pipe, as Node's spawn makes it), the reader's close may come as
 * ECONNRESET instead. Like gh, we stop writing and the command ends as it would have. Any other write error
 * is rethrown.
 */
const READER_GONE = new Set(["EPIPE", "ECONNRESET", "ERR_STREAM_DESTROYED"]);

/** The write error says the reader went away (not a fault of this process). */
export function readerGone(error: NodeJS.ErrnoException): boolean {
  return READER_GONE.has(error.code ?? "");
}

export function quietWhenClosed(stream: Writable): void {
  if (!stream.listeners("error").includes(onWriteError)) stream.on("error", onWriteError);
}

function onWriteError(this: Writable, error: NodeJS.ErrnoException): void {
  if (!readerGone(error)) throw error;
  GONE.add(this);
}

export function isClosed(stream: Writable): boolean {
  return GONE.has(stream) || stream.destroyed || stream.writableEnded;
}
