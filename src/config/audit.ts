/**
 * The audit log: one JSON line for each write sent to the service, whichever surface sent it (the CLI, the SDK,
 * the MCP server), appended to `audit.log` in the config folder. The API layer writes it (api/endpoints.ts,
 * where every operation is sent by its record); whoever makes the client says who acts (connection.ts,
 * sdk/create.ts), and the MCP server says it per session (`actingAs`).
 *
 * A line: time, surface, actor (the OS user, or `ci`; an MCP client's name/version; an HTTP token's name),
 * the assistant the environment announces if any, profile, operation (its record's name), method, the path's
 * ids or a bulk request's count of items, outcome (ok, error with the HTTP status or the failure's kind,
 * uncertain). Never the key, never a body: no e-mail and no name is written.
 *
 * The file is private (0600, opened with O_NOFOLLOW, in a folder only its owner can write: config/private.ts);
 * it is opened before the write is sent, so a file that cannot be kept (a link in its place) stops the write
 * with nothing sent. At MAX_AUDIT_BYTES it becomes `audit.log.1` (the one previous file kept) before the next
 * line. Processes share it: a line is written, and the log rotated, under `audit.log.lock` (config/private.ts's
 * takeLock), and a line whose file was rotated away since it was opened goes to the log as it is then.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  closeSync,
  constants,
  createReadStream,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { CliError, NetworkError, UncertainError, UsageError } from "../errors.js";
import { NOFOLLOW } from "../new-file.js";
import { jsonOrUndefined } from "../parse/json.js";
import { boundedLines } from "../parse/lines.js";
import { ensurePrivateDir, openForAppend, whileLocked } from "./private.js";
import { isCi } from "./resolve.js";

export const AUDIT_FILE = "audit.log";
/** The size at which the log is rotated: ~40,000 lines; the previous file (`audit.log.1`) is kept, one only. */
export const MAX_AUDIT_BYTES = 10 * 1024 * 1024;
/** A longer line is none of ours (ours are a few hundred bytes): `readAudit` skips it. */
const MAX_LINE_BYTES = 64 * 1024;
/** What an actor's name or an assistant's may hold: they come from the environment or from an MCP client. */
const MAX_NAME_CHARS = 100;

export const SURFACES = ["cli", "sdk", "mcp"] as const;
export type Surface = (typeof SURFACES)[number];

export interface AuditEntry {
  time: string;
  surface: Surface;
  actor: string;
  /** An AI assistant the environment announces (ASSISTANT_VARIABLES). */
  assistant?: string;
  profile: string;
  operation: string;
  method: string;
  /** The ids the path names (`{testId: 1001}`). */
  target?: Record<string, number | string>;
  /** A bulk request's items (candidates, employees, invitation ids): a count, never the rows. */
  count?: number;
  outcome: "ok" | "error" | "uncertain";
  /** The service's HTTP status of a refusal. */
  status?: number;
  /** A failure without a status: `network`, or the error's name. */
  error?: string;
}

/** Who acts: the surface and its actor. */
export interface Acting {
  surface: Surface;
  actor: string;
}

/** The write being sent, as its line names it. */
export type AuditedWrite = Pick<AuditEntry, "operation" | "method" | "target" | "count">;

/**
 * Assistants that announce themselves to the commands they run, by the variable they set (checked against each
 * tool's documentation or source): Claude Code sets CLAUDECODE=1 in its shells; Cursor's agent CURSOR_AGENT=1
 * (CURSOR_TRACE_ID is in every Cursor terminal, a person's too: not taken); Gemini CLI GEMINI_CLI=1; Codex
 * CODEX_SANDBOX (when sandboxed) or CODEX_THREAD_ID. AI_AGENT, a name any tool may set, is taken as given.
 */
export const ASSISTANT_VARIABLES: ReadonlyArray<[variable: string, name: string]> = [
  ["CLAUDECODE", "claude-code"],
  ["CURSOR_AGENT", "cursor"],
  ["GEMINI_CLI", "gemini-cli"],
  ["CODEX_SANDBOX", "codex"],
  ["CODEX_THREAD_ID", "codex"],
];

/** The assistant the environment announces, if any. */
export function assistantOf(env: NodeJS.ProcessEnv): string | undefined {
  const named = env.AI_AGENT?.trim();
  if (named) return plainName(named);
  return ASSISTANT_VARIABLES.find(([variable]) => env[variable] !== undefined && env[variable] !== "")?.[1];
}

/** The actor of a command or a script: `ci` in CI, else the OS user. */
export function actorOf(env: NodeJS.ProcessEnv): string {
  if (isCi(env)) return "ci";
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // No entry for this uid (a container's arbitrary user): the environment's word, if any.
  }
  return plainName(name || env.USER || env.LOGNAME || env.USERNAME || "unknown");
}

/** A name from outside (a client's, a variable's) as a line holds it: printable, one line, at most 100 characters. */
export function plainName(text: string): string {
  const plain = text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, "?").trim();
  return (plain.length > MAX_NAME_CHARS ? `${plain.slice(0, MAX_NAME_CHARS - 1)}…` : plain) || "unknown";
}

const acting = new AsyncLocalStorage<Acting>();

/** Runs `work` as `who`: the writes it sends are recorded with this surface and actor (an MCP session's). */
export function actingAs<T>(who: Acting, work: () => T): T {
  return acting.run({ surface: who.surface, actor: plainName(who.actor) }, work);
}

/** What a failure is, as a line says it. */
function outcomeOf(error: unknown): Pick<AuditEntry, "outcome" | "status" | "error"> {
  if (error instanceof UncertainError) return { outcome: "uncertain" };
  if (error instanceof CliError && error.status !== undefined)
    return { outcome: "error", status: error.status };
  if (error instanceof NetworkError) return { outcome: "error", error: "network" };
  return { outcome: "error", error: error instanceof Error ? error.name : "unknown" };
}

/** Whose client a log is: its surface, the profile it acts for, and the environment that names the actor. */
export interface AuditIdentity {
  surface: Surface;
  profile: string;
  env: NodeJS.ProcessEnv;
}

/** The log of one client: where it is, and who acts unless `actingAs` says otherwise. */
export class AuditLog {
  readonly path: string;
  private known?: Acting & { profile: string; assistant?: string };

  constructor(
    readonly dir: string,
    private readonly identity: AuditIdentity,
    /** The size at which it is rotated (a test's is small). */
    private readonly maxBytes = MAX_AUDIT_BYTES,
  ) {
    this.path = join(dir, AUDIT_FILE);
  }

  /** Who acts, found at the first write: a command that only reads never asks the system for its user. */
  get who(): Acting & { profile: string; assistant?: string } {
    const { surface, profile, env } = this.identity;
    this.known ??= { surface, profile, actor: actorOf(env), assistant: assistantOf(env) };
    return this.known;
  }

  /**
   * Opens the log for the line of one write, before the write is sent: a log that cannot be kept refuses the
   * write (a usage error, nothing sent). `done` writes the line once the outcome is known; it never throws
   * (the write was sent: its outcome matters more), `warn` says what went wrong.
   */
  open(write: AuditedWrite, warn: (line: string) => void): { done(error?: unknown): void } {
    const who = acting.getStore() ?? this.who;
    let fd = this.kept(() => {
      this.rotate();
      return this.openFile();
    });
    const { profile, assistant } = this.who;
    return {
      done: (error?: unknown) => {
        const entry: AuditEntry = {
          time: new Date().toISOString(),
          surface: who.surface,
          actor: who.actor,
          ...(assistant ? { assistant } : {}),
          profile,
          ...write,
          ...(error === undefined ? { outcome: "ok" } : outcomeOf(error)),
        };
        try {
          // Under the lock a rotation takes: the file is the log's (not one renamed away since the open, which
          // a second rotation would remove), and no other line is being written.
          this.locked(() => {
            if (!isAt(fd, this.path)) {
              closeSync(fd);
              fd = -1;
              fd = this.openFile();
            }
            // A line cut short by a crash is left on its own: this one starts on a line of its own.
            const size = fstatSync(fd).size;
            const torn = size > 0 && lastByte(fd, size) !== 10;
            writeAll(fd, `${torn ? "\n" : ""}${JSON.stringify(entry)}\n`);
          });
        } catch (failure) {
          warn(`Could not add to the audit log ${this.path}: ${(failure as Error).message}`);
        } finally {
          if (fd >= 0) closeSync(fd);
        }
      },
    };
  }

  /** `work`'s failures to keep the log as the usage error that stops the write. */
  private kept<T>(work: () => T): T {
    try {
      ensurePrivateDir(this.dir, this.dir, "the config folder");
      return work();
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ELOOP" ? "it is a symbolic link" : (error as Error).message;
      throw new UsageError(
        `Cannot keep the audit log ${this.path} (${why}), so the write was not sent`,
        "The audit log must be a file of yours in the config folder: remove what is in its place (the next write makes it anew), or point ASSESS_CONFIG_DIR at a folder of your own; nothing was sent.",
      );
    }
  }

  /** The log opened for appending (and reading its last byte), checked to be a private file of this user. */
  private openFile(): number {
    const fd = openForAppend(this.path, true);
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) throw new Error("it is not a file");
      const uid = process.getuid?.();
      if (uid !== undefined && info.uid !== uid)
        throw new Error(`it belongs to another user (uid ${info.uid})`);
      if (process.platform !== "win32" && (info.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
      return fd;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * At `maxBytes` the log becomes audit.log.1, replacing the older one. Under the lock, and looked at again
   * there: of writers that found it full at once, one renames it, the others find the new log (a second rename
   * would put the new log in the full one's place, or fail with nothing left to rename).
   */
  private rotate(): void {
    if (!this.full()) return;
    this.locked(() => {
      if (this.full()) renameSync(this.path, `${this.path}.1`);
    });
  }

  private full(): boolean {
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(this.path);
    } catch {
      return false;
    }
    if (info.isSymbolicLink()) throw Object.assign(new Error("a symbolic link"), { code: "ELOOP" });
    return info.isFile() && info.size >= this.maxBytes;
  }

  /** One writer at a time, across processes: a line is written, or the log rotated. */
  private locked<T>(work: () => T): T {
    return whileLocked(
      `${this.path}.lock`,
      {
        busy: () => new Error(`${this.path}.lock is held by another process for too long`),
        failed: (file, error) => new Error(`cannot make ${file}: ${(error as Error).message}`),
      },
      work,
    );
  }
}

/** Whether `fd` is the file at `path` (not one renamed away, nor a link). */
function isAt(fd: number, path: string): boolean {
  const open = fstatSync(fd);
  try {
    const there = lstatSync(path);
    return there.ino === open.ino && there.dev === open.dev;
  } catch {
    return false;
  }
}

/** The byte at `size - 1` of the file `fd` (opened for reading). */
function lastByte(fd: number, size: number): number | undefined {
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : undefined;
}

/** Writes `text` whole: a short write goes on from where it stopped. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

export interface AuditQuery {
  /** Lines from this time on. */
  since?: Date;
  surface?: Surface;
}

/**
 * The lines of the log (the previous file's first), oldest first, read a chunk at a time: a line that is not one
 * of ours (torn by a crash, or longer than 64 KiB, never held whole) is skipped and counted in `skipped`.
 * Neither file is followed if it is a link.
 */
export async function readAudit(
  dir: string,
  query: AuditQuery = {},
): Promise<{ entries: AuditEntry[]; skipped: number }> {
  const entries: AuditEntry[] = [];
  let skipped = 0;
  const take = (text: string) => {
    if (text.trim() === "") return;
    const entry = parseEntry(text);
    if (entry === undefined) {
      skipped++;
      return;
    }
    if (query.surface !== undefined && entry.surface !== query.surface) return;
    if (query.since !== undefined && !(Date.parse(entry.time) >= query.since.getTime())) return;
    entries.push(entry);
  };
  for (const path of [join(dir, `${AUDIT_FILE}.1`), join(dir, AUDIT_FILE)]) {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new UsageError(
        `Cannot read the audit log ${path}: ${(error as NodeJS.ErrnoException).code === "ELOOP" ? "it is a symbolic link" : (error as Error).message}`,
        "The audit log is a file assess keeps in the config folder; remove what is in its place.",
      );
    }
    const chunks = createReadStream("", { fd, highWaterMark: 64 * 1024 });
    for await (const { text, tooLong, last } of boundedLines(chunks, path, "", MAX_LINE_BYTES)) {
      // A last line without its newline: a write cut short, or one under way.
      if (tooLong || last) skipped++;
      else take(text);
    }
  }
  return { entries, skipped };
}

/** A line as ours are, or undefined. */
function parseEntry(text: string): AuditEntry | undefined {
  const value = jsonOrUndefined(text);
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const entry = value as Partial<AuditEntry>;
  const ok =
    typeof entry.time === "string" &&
    typeof entry.operation === "string" &&
    typeof entry.actor === "string" &&
    (SURFACES as readonly unknown[]).includes(entry.surface);
  return ok ? (entry as AuditEntry) : undefined;
}
