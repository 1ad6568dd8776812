/**
 * The invitation book: every invitation sent from this machine (`invite send`, `invite link`, `invite bulk`,
 * reattempts, reminders, rules; the SDK's and the MCP server's too), so that `invite status` can say who has not
 * finished and `invite remind` can chase them: the service lists only finished attempts.
 *
 * It is told by the API layer (`Api.onInvited`, api/endpoints.ts) of each invitation the service accepted, so no
 * surface records anything itself. One NDJSON file per profile and service (base URL) in the config folder's
 * `invitations/` (0700; the file 0600, never through a link):
 *
 *   {"book":1,"profile":"default","service":"https://…","created":"…"}
 *   {"test":1001,"email":"ada@example.com","name":"Ada","id":7001,"end":"…","at":"…","how":"invite","keep":{…}}
 *
 * Appended (one write per call, in the system's hands when it returns and flushed to disk once as the process
 * ends: a bulk run's sends wait for no disk), a last line cut short by a crash ignored on reading and the next record
 * started on a line of its own. Bounded: a candidate is forgotten BOOK_RETENTION_DAYS after their window ends (an
 * invitation sent with no end counts as open for UNKNOWN_WINDOW_DAYS), and past BOOK_MAX_RECORDS records the
 * oldest go first. An append that finds the book at twice its cap trims it to the newest BOOK_MAX_RECORDS by
 * reading it as it copies it, in pieces: a bulk run of a million rows keeps its memory and its pace (it read
 * and parsed the whole book after every chunk once past the cap: 353 MiB and 5× the time, bench/bulk.mjs).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Api, SentInvitation } from "../api/endpoints.js";
import { ensurePrivateDir, openForAppend, whileLocked, writePrivateFile } from "../config/private.js";
import { configDir } from "../config/store.js";
import { CliError } from "../errors.js";
import { type Fields, isRecord } from "../fields.js";
import { emailKey, serviceId } from "../identity.js";
import { NewFile, NOFOLLOW } from "../new-file.js";
import { jsonOrUndefined } from "../parse/json.js";

/** Days a candidate stays in the book after their window ended. */
export const BOOK_RETENTION_DAYS = 90;
/** Days an invitation sent without an end is taken to be open, for pruning only. */
export const UNKNOWN_WINDOW_DAYS = 30;
/** The most records the book keeps. */
export const BOOK_MAX_RECORDS = 100_000;
/** The shortest line a record can be (`{"test":1,"email":"a@b.c","at":"<ISO>","how":"x"}`): below twice the cap of these, no count is needed. */
const MIN_RECORD_BYTES = 64;
/** What a trim reads and copies at a time. */
const PIECE_BYTES = 1024 * 1024;
const DAY_MS = 86_400_000;
/** Never through a link; O_NONBLOCK: a FIFO in the book's place is refused at once, not waited on for a writer. */
const READ_FLAGS = constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/** One line of the book: an invitation as it was sent. */
export interface BookRecord {
  test: number;
  /** As src/identity.ts keys e-mails (trimmed, case-folded). */
  email: string;
  name?: string;
  id?: number;
  /** The window's end as sent (UTC), when one was. */
  end?: string;
  /** When it was sent (ISO). */
  at: string;
  /** invite, link, bulk, reattempt, remind, rule… */
  how: string;
  /** A reattempt's earlier attempt. */
  previous?: number;
  keep?: Fields;
}

/** A candidate of a test as the book knows them: their records folded. */
export interface BookedCandidate {
  testId: number;
  email: string;
  name?: string;
  /** The last invitation id an answer gave. */
  testInvitationId?: number;
  /** The window's end of the last invitation (undefined: none was sent). */
  end?: string;
  /** First invited from here. */
  invitedAt: string;
  /** The last invitation or reminder. */
  lastSentAt: string;
  lastReminderAt?: string;
  /** How the last one was sent. */
  how: string;
  /** How many were sent (the first, reminders, reattempts). */
  sent: number;
  /** The settings of the last invitation that had any (a reminder sends them again). */
  keep?: Fields;
}

export interface BookLimits {
  retentionDays: number;
  maxRecords: number;
}

/** Where a client's invitations are booked: its profile and the service it sends to. */
export interface BookPlace {
  env: NodeJS.ProcessEnv;
  profile: string;
  /** The base URL (the embedded sandbox's stable name with --sandbox). */
  service: string;
}

export class InvitationBook {
  /** Invitation ids to their candidates, for reattempts that name only the attempt: filled on first need. */
  private byId?: Map<number, { test: number; email: string; name?: string }>;
  /**
   * The records in the file as this process last counted them, plus those it appended since (another process
   * may have added or trimmed: it says only when to count again, under the lock).
   */
  private counted?: number;

  constructor(
    readonly path: string,
    private readonly place: Pick<BookPlace, "profile" | "service">,
    private readonly limits: BookLimits = {
      retentionDays: BOOK_RETENTION_DAYS,
      maxRecords: BOOK_MAX_RECORDS,
    },
    private readonly root = join(path, "..", ".."),
  ) {}

  static at(place: BookPlace, limits?: BookLimits): InvitationBook {
    const root = configDir(place.env);
    const file = `${place.profile.replace(/[^\w.-]/g, "_")}-${createHash("sha256")
      .update(place.service.replace(/\/+$/, ""))
      .digest("hex")
      .slice(0, 16)}.ndjson`;
    const { profile, service } = place;
    return new InvitationBook(join(root, "invitations", file), { profile, service }, limits, root);
  }

  /** Records what the service accepted; a reattempt's candidate found by its attempt. */
  record(sent: readonly SentInvitation[], now = new Date()): void {
    const at = now.toISOString();
    const lines: string[] = [];
    // A bulk chunk's candidates share their settings: written out once.
    const keepText = new Map<Fields, string>();
    for (const invitation of sent) {
      let { testId, email, name } = invitation;
      if ((testId === undefined || email === undefined) && invitation.previous !== undefined) {
        const known = this.candidateOf(invitation.previous);
        if (known) ({ test: testId, email, name = name } = known);
      }
      const key = emailKey(email);
      if (testId === undefined || key === undefined) continue;
      const { testInvitationId: id, end, how, previous, keep } = invitation;
      if (id !== undefined) this.byId?.set(id, { test: testId, email: key, name });
      // A BookRecord's JSON, its keys in its order, written out: a bulk run books a million (~1 µs, not ~2.5).
      const json = JSON.stringify;
      let line = `{"test":${json(testId)},"email":${json(key)}`;
      if (name !== undefined) line += `,"name":${json(name)}`;
      if (id !== undefined) line += `,"id":${json(id)}`;
      if (end !== undefined) line += `,"end":${json(end)}`;
      line += `,"at":"${at}","how":${json(how)}`;
      if (previous !== undefined) line += `,"previous":${json(previous)}`;
      if (keep !== undefined) {
        const text = keepText.get(keep) ?? json(keep);
        keepText.set(keep, text);
        line += `,"keep":${text}`;
      }
      lines.push(`${line}}`);
    }
    if (lines.length === 0) return;
    this.locked(() => {
      const size = this.append(`${lines.join("\n")}\n`);
      const cap = this.limits.maxRecords;
      if (this.counted !== undefined) this.counted += lines.length;
      else if (size > 2 * cap * MIN_RECORD_BYTES) this.counted = this.countRecords();
      if ((this.counted ?? 0) > 2 * cap) this.counted = this.trim(now);
    });
  }

  /** The book's records, oldest first; a line that cannot be read (a write a crash cut short) is skipped. */
  records(): { records: BookRecord[]; skipped: number } {
    const text = this.reading((fd) => readFileSync(fd, "utf8"), "");
    const records: BookRecord[] = [];
    let skipped = 0;
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const record = parseRecord(line);
      if (record) records.push(record);
      else if (!line.startsWith('{"book"')) skipped++;
    }
    return { records, skipped };
  }

  /**
   * The candidates, by test then first invitation, without those past the book's bounds; with `prune` (the
   * default) they are forgotten in the file too (rewritten only when something is forgotten).
   */
  candidates(now = new Date(), { prune = true } = {}): { candidates: BookedCandidate[]; skipped: number } {
    const { records, skipped } = this.records();
    const kept = this.bounded(records, now);
    if (prune && kept.length < records.length) this.locked(() => this.compact(now));
    return { candidates: fold(kept), skipped };
  }

  /** Rewrites the book whole with only what its bounds keep (under its lock). */
  private compact(now: Date): void {
    const kept = this.bounded(this.records().records, now);
    try {
      writePrivateFile(
        this.path,
        `${[this.header(now), ...kept.map((r) => JSON.stringify(r))].join("\n")}\n`,
      );
    } catch (error) {
      throw bookError("write", this.path, error);
    }
    this.counted = kept.length;
  }

  /** The book's first line: whose it is, and since when. */
  private header(now: Date): string {
    const { profile, service } = this.place;
    return JSON.stringify({ book: 1, profile, service, created: now.toISOString() });
  }

  /** The records of the candidates within the retention, at most `maxRecords` (the newest). */
  private bounded(records: BookRecord[], now: Date): BookRecord[] {
    const latest = new Map<string, BookRecord>();
    for (const record of records) latest.set(candidateKey(record), record);
    const keepUntil = (record: BookRecord) => {
      const end = record.end !== undefined ? Date.parse(record.end) : Number.NaN;
      const windowEnd = Number.isNaN(end) ? Date.parse(record.at) + UNKNOWN_WINDOW_DAYS * DAY_MS : end;
      return windowEnd + this.limits.retentionDays * DAY_MS;
    };
    const live = new Set(
      [...latest].filter(([, record]) => keepUntil(record) >= now.getTime()).map(([key]) => key),
    );
    const kept = records.filter((record) => live.has(candidateKey(record)));
    // The oldest records go first (a candidate invited again keeps their newest).
    return kept.length > this.limits.maxRecords ? kept.slice(kept.length - this.limits.maxRecords) : kept;
  }

  private candidateOf(id: number) {
    if (!this.byId) {
      this.byId = new Map();
      for (const record of this.records().records)
        if (record.id !== undefined) this.byId.set(record.id, record);
    }
    return this.byId.get(id);
  }

  /**
   * Appends `text` and flushes it to disk; a last line a crash cut short is ended first (its record is lost,
   * the new one is read whole). Returns the file's size.
   */
  private append(text: string): number {
    ensurePrivateDir(this.root, join(this.path, ".."), "the invitation book");
    let fd: number;
    try {
      fd = openForAppend(this.path, true);
    } catch (error) {
      throw bookError("write", this.path, error);
    }
    try {
      if (!fstatSync(fd).isFile()) throw bookError("write", this.path, new Error("not a file"));
      let size = fstatSync(fd).size;
      let lines = text;
      if (size === 0) {
        lines = `${this.header(new Date())}\n${text}`;
      } else {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) lines = `\n${text}`;
      }
      const bytes = Buffer.from(lines);
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
      size += bytes.length;
      flushAtExit(this.path);
      return size;
    } finally {
      if (fd !== -1) closeSync(fd);
    }
  }

  /** The records in the file: its lines but the header, read in pieces (lines a crash cut short count too). */
  private countRecords(): number {
    let lines = 0;
    this.pieces(0, (piece) => {
      for (let at = piece.indexOf(0x0a); at !== -1; at = piece.indexOf(0x0a, at + 1)) lines++;
      return true;
    });
    return Math.max(0, lines - 1);
  }

  /**
   * Keeps the newest `maxRecords` records under a new header, copying the file from the first of them in pieces
   * (under the lock: no append is lost); returns how many records the book holds.
   */
  private trim(now: Date): number {
    const records = this.countRecords();
    if (records <= this.limits.maxRecords) return records;
    // The header's line and the records that go: the copy starts after that many newlines.
    let skip = 1 + records - this.limits.maxRecords;
    let from = 0;
    this.pieces(0, (piece, offset) => {
      for (let at = piece.indexOf(0x0a); at !== -1; at = piece.indexOf(0x0a, at + 1)) {
        if (--skip === 0) {
          from = offset + at + 1;
          return false;
        }
      }
      return true;
    });
    const file = new NewFile(this.path);
    try {
      file.write(`${this.header(now)}\n`);
      this.pieces(from, (piece) => {
        file.write(piece);
        return true;
      });
      file.commit();
    } catch (error) {
      file.discard();
      throw bookError("write", this.path, error);
    }
    return this.limits.maxRecords;
  }

  /** Hands the file's bytes from `start` to `each` piece by piece, with each piece's offset, until it says stop. */
  private pieces(start: number, each: (piece: Buffer, offset: number) => boolean): void {
    this.reading((fd) => {
      const buffer = Buffer.alloc(PIECE_BYTES);
      for (let offset = start; ; ) {
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        if (read === 0 || !each(buffer.subarray(0, read), offset)) return;
        offset += read;
      }
    }, undefined);
  }

  /**
   * `work` on the book opened for reading (never through a link, a FIFO refused at once: not a file), or
   * `missing` when there is no book yet.
   */
  private reading<T>(work: (fd: number) => T, missing: T): T {
    let fd: number;
    try {
      fd = openSync(this.path, READ_FLAGS);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return missing;
      throw bookError("read", this.path, error);
    }
    try {
      if (!fstatSync(fd).isFile()) throw bookError("read", this.path, new Error("not a file"));
      return work(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** One writer at a time: a compaction must not drop a record another process appends meanwhile. */
  private locked<T>(work: () => T): T {
    ensurePrivateDir(this.root, join(this.path, ".."), "the invitation book");
    return whileLocked(
      `${this.path}.lock`,
      {
        busy: () => bookError("lock", this.path, new Error("busy")),
        failed: (file, error) => bookError("lock", file, error),
      },
      work,
    );
  }
}

/** Books appended to by this process, flushed to disk as it ends (flushAtExit). */
const unflushed = new Set<string>();

/**
 * Flushes the book to disk once, as the process ends, not after each append: a bulk run's flushes, each
 * journalled by the file system, slowed the ledger's own durable writes (~0.3 s of a 100k-row run, 1.57x the
 * raw loop). A crash of assess loses no line (each is in the system's hands once written); a power cut may
 * lose the last ones, which the ledger still has as sent.
 */
function flushAtExit(path: string): void {
  if (unflushed.size === 0) process.once("exit", flushBooks);
  unflushed.add(path);
}

function flushBooks(): void {
  for (const path of unflushed) {
    try {
      const fd = openSync(path, READ_FLAGS);
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Gone, or a failing disk: what was written is in the system's hands.
    }
  }
  unflushed.clear();
}

function candidateKey(record: Pick<BookRecord, "test" | "email">): string {
  return `${record.test}\n${record.email}`;
}

/** A line of the book, or undefined when it is not one (the header, a line cut short, something else). */
function parseRecord(line: string): BookRecord | undefined {
  const value = jsonOrUndefined(line);
  if (!isRecord(value)) return undefined;
  const test = serviceId(value.test);
  const email = emailKey(value.email);
  if (test === undefined || email === undefined || typeof value.at !== "string") return undefined;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    test,
    email,
    name: text(value.name),
    id: serviceId(value.id),
    end: text(value.end),
    at: value.at,
    how: text(value.how) ?? "invite",
    previous: serviceId(value.previous),
    keep: isRecord(value.keep) ? value.keep : undefined,
  };
}

/** The records (oldest first) folded per candidate, by test then first invitation. */
export function fold(records: readonly BookRecord[]): BookedCandidate[] {
  const byKey = new Map<string, BookedCandidate>();
  for (const r of records) {
    const key = candidateKey(r);
    const known = byKey.get(key);
    if (!known) {
      byKey.set(key, {
        testId: r.test,
        email: r.email,
        ...(r.name !== undefined && { name: r.name }),
        ...(r.id !== undefined && { testInvitationId: r.id }),
        ...(r.end !== undefined && { end: r.end }),
        invitedAt: r.at,
        lastSentAt: r.at,
        ...(r.how === "remind" && { lastReminderAt: r.at }),
        how: r.how,
        sent: 1,
        ...(r.keep !== undefined && { keep: r.keep }),
      });
      continue;
    }
    known.sent++;
    known.lastSentAt = r.at;
    known.how = r.how;
    if (r.name !== undefined) known.name = r.name;
    if (r.id !== undefined) known.testInvitationId = r.id;
    // The service resets an invitation to what its last request said: no end sent, none known.
    if (r.end !== undefined) known.end = r.end;
    else delete known.end;
    if (r.how === "remind") known.lastReminderAt = r.at;
    if (r.keep !== undefined) known.keep = r.keep;
  }
  return [...byKey.values()].sort((a, b) => a.testId - b.testId || a.invitedAt.localeCompare(b.invitedAt));
}

function bookError(what: "read" | "write" | "lock", path: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  // O_NOFOLLOW fails with ELOOP (EMLINK on some BSDs) on a link: read through it, `invite remind` would
  // e-mail whoever another file names.
  if (code === "ELOOP" || code === "EMLINK" || (error as Error).message === "not a file") {
    const kind = code === undefined ? "not a file" : "a symbolic link";
    return new CliError(
      `The invitation book ${path} is ${kind}; assess reads and writes it only as a file of its own`,
      {
        suggestion:
          "Replace it with a copy of the book it stands for, or delete it (invite status and invite remind then know only what is sent from now on).",
        cause: error,
      },
    );
  }
  return new CliError(`Cannot ${what} the invitation book ${path}: ${(error as Error).message}`, {
    suggestion: "Check the disk space and permissions of the config folder (ASSESS_CONFIG_DIR).",
    cause: error,
  });
}

/**
 * Books every invitation `api` sends (Api.onInvited) in the book of `place`. A book that cannot be written is
 * warned of (as the client warns: its transport's `warn`), never an error: the invitation was sent.
 */
export function keepBook(api: Api, place: BookPlace): InvitationBook {
  const book = InvitationBook.at(place);
  api.onInvited = (sent) => {
    try {
      book.record(sent);
    } catch (error) {
      api.transport.options.warn(
        `the invitation was sent, but could not be recorded in the invitation book (${(error as Error).message}): \`assess invite status\` will not count it`,
      );
    }
  };
  return book;
}
