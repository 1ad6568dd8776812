import { CliError, UsageError } from "../../errors.js";

/** Why a local server could not listen: the user's to change (exit 2), or else a failure (exit 1). */
export function listenError(host: string, port: number, error: unknown): CliError {
  const code = (error as { code?: string }).code;
  const where = `${host}:${port}`;
  switch (code) {
    case "EADDRINUSE":
      return new UsageError(
        `Cannot listen on ${where}: port ${port} is in use (another sandbox or listener may be running)`,
        "Pick another --port (--port 0 takes any free one), or stop the one already running.",
      );
    case "EACCES":
      return new UsageError(
        `Cannot listen on ${where}: this user may not use port ${port}`,
        "Pick a --port above 1023, or --port 0 for any free one.",
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return new UsageError(
        `Cannot listen on ${where}: ${host} is not an address of this machine`,
        "Use --host 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).",
      );
    default:
      return new CliError(`Cannot listen on ${where}: ${code ?? (error as Error).message}`, {
        suggestion: "Check --host and --port.",
        cause: error,
      });
  }
}
