/**
 * The ledger of bulk runs (docs/guide.md, "Bulk runs"): one NDJSON file per target under ASSESS_CONFIG_DIR/ledgers,
 * appended to and made durable before each request goes out and after its answer. It holds 64-bit hashes of
 * row keys, never e-mails or the API key.
 *
 *   {"ledger":1,"kind":"invite","target":{"baseUrl":"…","key":"<sha256 prefix>","testId":1001},"created":"…"}
 *   {"t":"keys","c":"<run>-<seq>","n":1000,"lines":[2,1001],"h":"<base64 of the rows' 64-bit key hashes>"}
 *   {"t":"send","c":"…","at":"…"}           the chunk is about to go out
 *   {"t":"ok","c":"…"}                      answered; with "failed":[indexes] for per-item refusals
 *   {"t":"fail","c":"…","error":"…"}         refused as a whole or never delivered: nothing confirmed
 *   {"t":"uncertain","c":"…","error":"…"}    went out, answer lost: outcome unknown
 *
 * A chunk's keys are written as soon as it is formed, so only the short "send" record is on the path of its
 * request (bench/README.md). Earlier versions put the keys in the "send" record; they read the same. While a
 * run writes, the file ends in zeros synced ahead of the records (`reserve`), so a record's flush changes no
 * size or blocks; reading ignores them, closing truncates them.
 *
 * Invariants:
 * - "send" is durable before the request goes out (`begin`), the outcome after the answer (`end`); a key is
 *   DONE only after an "ok" record that does not list it as failed.
 * - Reading never turns a doubt into DONE: keys never sent are ignored; a "send" without an outcome, or with
 *   "uncertain", reads as UNCERTAIN unless a later chunk confirmed the key; unreadable lines are counted.
 * - Only a file of its own in a private folder (`ensureLedgerDir`) is read or written: a symbolic link is refused.
 * - One writer per ledger at a time (a lock file beside it); a read-only open never writes or locks.
 */
import { createHash } from "node:crypto";
import { constants, existsSync, fdatasyncSync, mkdirSync, writeSync } from "node:fs";
import { type FileHandle, lstat, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { checkPrivateDir, takeLock } from "../../config/private.js";
import { configDir } from "../../config/store.js";
import { CliError, UsageError } from "../../errors.js";
import { isRecord } from "../../fields.js";
import { NOFOLLOW } from "../../new-file.js";
import { jsonOrUndefined } from "../../parse/json.js";
import { KeySet } from "../storage/keyset.js";
import { DONE, UNCERTAIN } from "./types.js";

/** Ledger identity of one group: where the rows go. Holds the API key's fingerprint, never the key. */
export interface LedgerTarget {
  baseUrl: string;
  /** `keyFingerprint(apiKey)`. */
  key: string;
  testId?: number | string;
}

/** A key's fingerprint: enough to tell accounts apart in a ledger name, useless as a credential. */
export function keyFingerprint(apiKey: string): string {
  return createHash("sha256").update(`assess-ledger:${apiKey}`).digest("hex").slice(0, 16);
}

export function ledgerDir(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), "ledgers");
}

/**
 * Makes the ledgers' folder if it is missing (0700), then checks it. What it holds (ledgers, spools of checked
 * rows) decides what a rerun sends, so it is held to the config folder's rule (config/private.ts): refused
 * (exit 2, before anything is sent) when it is a symbolic link, writable by others, or another user's.
 */
export function ensureLedgerDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } finally {
    // Also when mkdir failed: a link to nowhere in the folder's place is named, rather than ENOENT.
    checkLedgerDir(dir);
  }
}

/** Checks the ledgers' folder if it is there (a dry run reads ledgers but makes nothing). */
function checkLedgerDir(dir: string): void {
  checkPrivateDir(dir, "where bulk runs keep their ledgers");
}

export function ledgerPath(dir: string, kind: string, target: LedgerTarget): string {
  const id = createHash("sha256")
    .update(JSON.stringify([kind, target.baseUrl.replace(/\/+$/, ""), target.key, target.testId ?? null]))
    .digest("hex")
    .slice(0, 20);
  const suffix = target.testId !== undefined ? `-test${String(target.testId).replace(/[^\w-]/g, "_")}` : "";
  return join(dir, `${kind}${suffix}-${id}.ndjson`);
}

/** O_DSYNC where the system has it: one system call per durable write instead of write + fdatasync. */
const WRITE_FLAGS = constants.O_CREAT | constants.O_RDWR | (constants.O_DSYNC ?? 0) | NOFOLLOW;
/** O_NONBLOCK: a FIFO in a ledger's place must not hang the run before it can be refused. */
const READ_FLAGS = constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0);
const DSYNC = constants.O_DSYNC !== undefined;
/** Zeroed space is reserved in steps that double from the first to the last, and written this much at a time. */
const FIRST_RESERVE = 64 * 1024;
const MAX_RESERVE = 4 * 1024 * 1024;
const ZEROS_PIECE = 1024 * 1024;
/** Unreadable lines a warning names (it counts the rest). */
const SKIPPED_SHOWN = 3;

export type ChunkOutcome =
  | { t: "ok"; failed?: number[] }
  | { t: "fail"; error: string }
  | { t: "uncertain"; error: string };

export class Ledger {
  private handle?: FileHandle;
  /** Records waiting for the next write, with the promises of their callers. */
  private queue: Array<{ line: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** Each prepared chunk's keys record, until its begin (which waits for it). */
  private readonly keysWritten = new Map<string, Promise<void>>();
  private flushing?: Promise<void>;
  /** Where the next record goes: the end of the records. */
  private tail = 0;
  /** The end of the zeroed space; `reserving` is on its way to move it further. */
  private reserved = 0;
  private reserving?: Promise<void>;
  /** A write failed, maybe half done: the next record starts on a line of its own. */
  private torn = false;
  /** Releases the lock of a ledger opened to write. */
  private unlock?: () => void;

  private constructor(
    readonly path: string,
    /** Folded state of the earlier runs; the engine adds this run's SEEN flags to the same set. */
    readonly keys: KeySet,
    /** Lines that could not be read, and the first few of their line numbers. */
    readonly skippedLines: number,
    readonly skippedAt: number[],
  ) {}

  /**
   * `readOnly`: read (dry runs, counting after a stop), never write or lock. `expected`: the keys this run
   * will add, to size the set once instead of growing it.
   */
  static async open(
    dir: string,
    kind: string,
    target: LedgerTarget,
    options: { restart?: boolean; readOnly?: boolean; expected?: number } = {},
  ): Promise<Ledger> {
    const path = ledgerPath(dir, kind, target);
    let unlock: (() => void) | undefined;
    if (options.readOnly) checkLedgerDir(dir);
    else {
      ensureLedgerDir(dir);
      unlock = lockLedger(path);
    }
    let ledger: Ledger | undefined;
    try {
      // A link (or FIFO) in the ledger's place goes, not its target (rm does not follow it); a folder is refused,
      // by a dry run too: it says what the run would do.
      if (options.restart) await refuseFolder(path);
      if (options.restart && unlock) await rm(path, { force: true });
      const { keys, skipped, skippedAt } = options.restart
        ? { keys: new KeySet(options.expected), skipped: 0, skippedAt: [] }
        : await load(path, options.expected ?? 0);
      ledger = new Ledger(path, keys, skipped, skippedAt);
      if (unlock) {
        ledger.unlock = unlock;
        const fresh = keys.size === 0 && !existsSync(path);
        const [handle, size] = await openFile(path, WRITE_FLAGS);
        ledger.handle = handle;
        ledger.reserved = size;
        // A write torn by a crash leaves a last line without its newline: start on a line of our own.
        [ledger.tail, ledger.torn] = await recordsEnd(handle, size).catch((error: unknown) => {
          throw unreadable(path, error);
        });
        if (fresh) {
          await ledger
            .append({ ledger: 1, kind, target, created: new Date().toISOString() })
            .catch((error: unknown) => {
              throw ledgerError(path, error);
            });
          // The new directory entry must survive a crash too.
          await syncDir(dir);
        }
      }
      return ledger;
    } catch (error) {
      // Nothing stays open or locked (a long-lived `assess mcp serve` would keep it), and the file stays as it
      // is: close() would cut it at a tail not yet read, all of an earlier run's records gone with it.
      await ledger?.reserving?.catch(() => undefined);
      await ledger?.handle?.close().catch(() => undefined);
      unlock?.();
      throw error;
    }
  }

  /** Durably records the keys of a chunk as soon as it is formed; `begin` waits for them. */
  prepare(chunk: string, hashes: Uint32Array, lines: [number, number]): Promise<void> {
    // A read-only ledger (a dry run's) writes nothing: the chunk is only marked prepared, its keys not encoded.
    const written = this.handle ? this.append(keysRecord(chunk, hashes, lines)) : Promise.resolve();
    // Awaited by begin; a chunk that never goes out must not leave its failure unheard.
    written.catch(() => undefined);
    this.keysWritten.set(chunk, written);
    return written;
  }

  /** Durably records that a prepared chunk is about to go out: never a "send" without its keys. */
  async begin(chunk: string): Promise<void> {
    const keys = this.keysWritten.get(chunk);
    this.keysWritten.delete(chunk);
    if (keys === undefined) throw new Error(`ledger: chunk ${chunk} was not prepared`);
    await keys;
    await this.append({ t: "send", c: chunk, at: new Date().toISOString() });
  }

  /** Durably records a chunk's outcome. */
  end(chunk: string, outcome: ChunkOutcome): Promise<void> {
    return this.append({ ...outcome, c: chunk });
  }

  /**
   * Adds a record. The records of one turn of the event loop (an answer's record and the "send" it lets go)
   * share one write and its flush, so concurrent chunks do not each wait for one of their own.
   */
  private append(record: object): Promise<void> {
    if (!this.handle) return Promise.resolve();
    const line = `${JSON.stringify(record)}\n`;
    const done = new Promise<void>((resolve, reject) => this.queue.push({ line, resolve, reject }));
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
    return done;
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const bytes = Buffer.from((this.torn ? "\n" : "") + batch.map((w) => w.line).join(""));
      const at = this.tail;
      // Past a failed write, whatever it left: its bytes stay on a line of their own.
      this.tail += bytes.length;
      try {
        while (this.tail > this.reserved) await this.reserve();
        // Zeroes the next step while the last half of this one fills, off the path of the records.
        if (this.reserved - this.tail < this.step() / 2) this.reserve().catch(() => undefined);
        // Synchronous: a record write takes ~0.1 ms, less than the thread pool costs the main thread (bench/README.md).
        const written = writeSync(this.handle!.fd, bytes, 0, bytes.length, at);
        if (written !== bytes.length) throw new Error(`short write (${written} of ${bytes.length} bytes)`);
        if (!DSYNC) fdatasyncSync(this.handle!.fd);
        this.torn = false;
        for (const w of batch) w.resolve();
      } catch (error) {
        this.torn = true;
        for (const w of batch) w.reject(error);
      }
    }
    this.flushing = undefined;
  }

  private step(): number {
    return Math.min(MAX_RESERVE, Math.max(FIRST_RESERVE, this.reserved));
  }

  /** Zeroes (and syncs) the next step of space past `reserved`, through the thread pool. */
  private reserve(): Promise<void> {
    this.reserving ??= (async () => {
      try {
        const step = this.step();
        const zeros = Buffer.alloc(Math.min(step, ZEROS_PIECE));
        for (let done = 0; done < step; done += zeros.length) {
          const { bytesWritten } = await this.handle!.write(zeros, 0, zeros.length, this.reserved + done);
          if (bytesWritten !== zeros.length) throw new Error("short write while reserving space");
        }
        if (!DSYNC) await this.handle!.datasync();
        this.reserved += step;
      } finally {
        this.reserving = undefined;
      }
    })();
    return this.reserving;
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.reserving?.catch(() => undefined);
    const handle = this.handle;
    this.handle = undefined;
    // The zeros past the records go (a crash that leaves them is harmless: reading ignores them).
    await handle?.truncate(this.tail).catch(() => undefined);
    await handle?.close();
    this.unlock?.();
  }
}

/** The end of a ledger's records (past its last byte that is not zero), and whether it cuts a line short. */
async function recordsEnd(handle: FileHandle, size: number): Promise<[end: number, torn: boolean]> {
  const piece = Buffer.allocUnsafe(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - piece.length);
    const { bytesRead } = await handle.read(piece, 0, end - start, start);
    for (let i = bytesRead - 1; i >= 0; i--) if (piece[i] !== 0) return [start + i + 1, piece[i] !== 0x0a];
    end = start;
  }
  return [0, false];
}

/**
 * Opens a ledger as a file of its own, with its size. A symbolic link (O_NOFOLLOW fails with ELOOP, EMLINK on
 * some BSDs), or not a file at all, is refused; other errors keep their own message.
 */
async function openFile(path: string, flags: number): Promise<[FileHandle, number]> {
  const handle = await open(path, flags, 0o600).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    throw code === "ELOOP" || code === "EMLINK" ? notAFile(path, "a symbolic link") : error;
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notAFile(path, "not a file");
    return [handle, info.size];
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function notAFile(path: string, what: string): UsageError {
  return new UsageError(
    `The ledger ${path} is ${what}; assess reads and writes ledgers only as files of their own`,
    "Replace it with a copy of the ledger it stands for (or delete it if no earlier run should count: its rows would be sent again); nothing was sent.",
  );
}

/** A folder in a ledger's place: never emptied for a restart, nor read as a ledger. */
async function refuseFolder(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info?.isDirectory()) throw notAFile(path, "not a file");
}

/** Reads a ledger (none yet reads as empty); a refused or unreadable one stops the run before it sends. */
async function load(path: string, expected: number) {
  try {
    const [handle, size] = await openFile(path, READ_FLAGS);
    return await fold(handle, size, expected);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { keys: new KeySet(Math.max(1024, expected)), skipped: 0, skippedAt: [] };
    if (error instanceof UsageError) throw error;
    throw unreadable(path, error);
  }
}

function unreadable(path: string, error: unknown): UsageError {
  return new UsageError(`Cannot read the ledger ${path}: ${(error as Error).message}`);
}

/** Folds a ledger file into a KeySet, streaming it line by line (a million-row ledger is ~17 MB). */
async function fold(handle: FileHandle, size: number, expected: number) {
  // Sized for the larger of this run's rows and the ledger's (~11 bytes a row), so it is allocated once.
  const keys = new KeySet(Math.max(1024, expected, Math.ceil(size / 11)));
  /** Chunks whose keys are known and that have not gone out (yet). */
  const prepared = new Map<string, Uint32Array>();
  /** Chunks that went out and have no outcome (yet). */
  const pending = new Map<string, Uint32Array>();
  let skipped = 0;
  const skippedAt: number[] = [];
  let lineNumber = 0;
  const apply = (text: string) => {
    lineNumber++;
    // Zeros end the records (space reserved for more, or a write a crash cut short).
    const line = text.charCodeAt(text.length - 1) === 0 ? text.replace(/\0+$/, "") : text;
    if (line.trim() === "") return;
    const record = jsonOrUndefined(line);
    // Not JSON (a write cut short), or JSON but not a record (the file was changed by something else).
    if (!isRecord(record)) {
      skipped++;
      if (skippedAt.length < SKIPPED_SHOWN) skippedAt.push(lineNumber);
      return;
    }
    const chunk = String(record.c ?? "");
    if (record.t === "keys") prepared.set(chunk, parseHashes(String(record.h ?? "")));
    else if (record.t === "send") {
      const hashes = record.h !== undefined ? parseHashes(String(record.h)) : prepared.get(chunk);
      prepared.delete(chunk);
      if (hashes) pending.set(chunk, hashes);
    } else if (record.t === "ok" || record.t === "fail" || record.t === "uncertain") {
      // An outcome settles a chunk that went out; one of a chunk never sent is ignored.
      const hashes = pending.get(chunk);
      pending.delete(chunk);
      if (hashes && record.t === "ok") {
        const failed = new Set(Array.isArray(record.failed) ? (record.failed as number[]) : []);
        for (let i = 0; i < hashes.length; i += 2) {
          if (!failed.has(i / 2)) keys.update(hashes[i]!, hashes[i + 1]!, DONE, UNCERTAIN);
        }
      } else if (hashes && record.t === "uncertain") markUncertain(keys, hashes);
    }
  };
  let rest = "";
  for await (const piece of handle.createReadStream({ encoding: "utf8", highWaterMark: 256 * 1024 })) {
    const text = rest + (piece as string);
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      apply(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  apply(rest);
  // Sent, then nothing: the process died while the request was out.
  for (const hashes of pending.values()) markUncertain(keys, hashes);
  return { keys, skipped, skippedAt };
}

function markUncertain(keys: KeySet, hashes: Uint32Array): void {
  for (let i = 0; i < hashes.length; i += 2) {
    if ((keys.get(hashes[i]!, hashes[i + 1]!) & DONE) === 0)
      keys.update(hashes[i]!, hashes[i + 1]!, UNCERTAIN);
  }
}

/** `h`: the chunk's key hashes, [hi, lo] pairs of little-endian uint32, base64. */
function parseHashes(base64: string): Uint32Array {
  const bytes = Buffer.from(base64, "base64");
  const out = new Uint32Array(Math.floor(bytes.length / 8) * 2);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readUInt32LE(i * 4);
  return out;
}

async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms (Windows) cannot open a directory; the file's own fsync is the best we can do there.
  }
}

/**
 * One run per ledger at a time: two runs against the same target would both send the rows neither has
 * confirmed yet. A lock left by a process that died is taken over.
 */
function lockLedger(ledger: string): () => void {
  const lock = `${ledger}.lock`;
  return takeLock(lock, {
    held: (pid) =>
      new UsageError(
        `Another assess run (pid ${pid}) is using the ledger ${ledger}`,
        "Wait for it to finish; if no such run exists, delete the .lock file beside the ledger.",
      ),
    busy: () => new UsageError(`Cannot lock the ledger ${ledger}`),
    failed: (file, error) =>
      new CliError(`Cannot lock the ledger ${ledger}: ${(error as Error).message}`, {
        suggestion: `Check ${file}: a run makes it beside the ledger, holding its process id, while it runs.`,
        cause: error,
      }),
  });
}

/**
 * Unreadable lines were ignored. One is what a run that stopped mid-write leaves; more mean something else
 * changed the file, and rows whose records were lost with them may be sent again.
 */
export function skippedWarning(ledger: Ledger): string {
  const n = ledger.skippedLines;
  const at = ledger.skippedAt.join(", ") + (n > ledger.skippedAt.length ? ", …" : "");
  const lines = n === 1 ? `1 line (line ${at})` : `${n} lines (lines ${at})`;
  return (
    `the ledger ${ledger.path} has ${lines} that could not be read, ignored` +
    (n === 1
      ? " (a run that stopped while writing a record leaves one such line)"
      : ": more than a stopped run leaves, so something else changed the file; rows whose records were lost may be sent again (--dry-run shows what a run would send)")
  );
}

/** A ledger record could not be written: the run stops (a rerun resumes). */
export function ledgerError(path: string, error: unknown): CliError {
  return new CliError(
    `Cannot write the ledger ${path}: ${error instanceof Error ? error.message : String(error)}`,
    {
      suggestion: "Check the disk space and permissions of ASSESS_CONFIG_DIR; rerun to resume.",
      cause: error,
    },
  );
}

/** A chunk's keys as the ledger stores them: its hashes' bytes (little-endian words) in base64. */
function keysRecord(chunk: string, hashes: Uint32Array, lines: [number, number]) {
  const bytes = Buffer.allocUnsafe(hashes.length * 4);
  for (let i = 0; i < hashes.length; i++) bytes.writeUInt32LE(hashes[i]!, i * 4);
  return { t: "keys", c: chunk, n: hashes.length / 2, lines, h: bytes.toString("base64") };
}
