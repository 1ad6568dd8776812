import type { Progress } from "../output/progress.js";

/**
 * What shared work (this folder) tells whoever runs it, and how it is told to stop, instead of the CLI's whole
 * context: the CLI passes its context (warnings on stderr, a bar on the status line, Ctrl-C), the MCP server and
 * the SDK their own.
 */
export interface Notices {
  /** Something the user should know that does not stop the work. */
  warn(message: string): void;
  /** A progress bar counting `noun` ("windows", "ids"); one that draws nothing where there is no terminal. */
  progress(noun?: string): Progress;
  /** Aborted at Ctrl-C: the work stops before its next call to the service. */
  readonly signal: AbortSignal;
}
