/**
 * The SDK's public types: what `dist/types/` gives a consumer, who has neither zod nor undici installed (the
 * bundles carry both). Those that are a zod schema's type of api/schemas.ts are written out as plain types by
 * the build, from the schema itself, so they cannot drift apart; sdk/client.ts has the compiler check that the
 * client implements `AssessClient`.
 */
import type { BodyOf, ItemOf, Paged, PathArgs, Read, ResultOf } from "../api/endpoints.js";
import type { OPERATIONS, Operation } from "../api/operations/index.js";
import type * as s from "../api/schemas.js";
import type * as z from "../parse/zod.js";
// biome-ignore lint/correctness/noUnusedImports: the written-out TestSettings names it (sdk/written-types.mjs)
import type { SETTING_FLAGS } from "../spec/settings-flags.js";

// Requests (strict: exactly the documented fields, checked before anything is sent)

// biome-ignore lint/correctness/noUnusedVariables: the written-out TestSettings and requests name it (sdk/written-types.mjs)
type Flag = z.infer<typeof s.Flag>;
// biome-ignore lint/correctness/noUnusedVariables: the written-out request types name it (sdk/written-types.mjs)
type ProctoringMode = z.infer<typeof s.ProctoringMode>;
/** @field startDateTime YYYY-MM-DDTHH:mm:ssZ */
export type InviteBody = z.input<typeof s.InviteBody>;
export type LinkInviteBody = z.input<typeof s.LinkInviteBody>;
export type ReattemptBody = z.input<typeof s.ReattemptBody>;
export type TestLinkBody = z.input<typeof s.TestLinkBody>;
/** The settings of a bulk invite's invitations. */
export type InviteSettings = z.input<typeof s.BulkInviteSettings>;
/** A candidate of a bulk invite. */
export type BulkCandidate = z.input<typeof s.BulkCandidate>;
export type EmployeeUpsertItem = z.input<typeof s.EmployeeUpsertItem>;
export type UserCreateBody = z.input<typeof s.UserCreateBody>;
export type UserUpdateBody = z.input<typeof s.UserUpdateBody>;
export type UserStatusBody = z.input<typeof s.UserStatusBody>;
export type GdprBody = z.input<typeof s.GdprBody>;

// Answers (lenient: the documented fields typed, any other kept)

export type Test = z.infer<typeof s.Test>;
/**
 * A section of a test, as `tests.get` gives it.
 * @field duration Minutes.
 */
export type TestSection = z.infer<typeof s.TestSection>;
/** One test as `tests.get` gives it: a listed test's fields, its number of questions and its sections. */
export type TestDetail = z.infer<typeof s.TestDetail>;

export type TestSettings = z.infer<typeof s.TestSettings>;

export type Invitation = z.infer<typeof s.Invitation>;
export type TestLink = z.infer<typeof s.TestLink>;
export type TestAttempt = z.infer<typeof s.TestAttempt>;
export type ReportSection = z.infer<typeof s.ReportSection>;
export type Report = z.infer<typeof s.Report>;
export type User = z.infer<typeof s.User>;

/** What `callbacks.process` learned of each id. */
export interface CallbacksOutcome {
  successful: number[];
  failed: number[];
  /** Ids the service refused as not the account's: nothing of that call was queued. */
  invalid: number[];
}

// Invitations sent from this machine (the invitation book: `assess invite status`)

/** What `invitations.status` looks at. */
export interface InvitationStatusOptions {
  /** Only these tests (default: every test of the book). */
  tests?: number[];
  /** Only candidates first invited at or after this (a Date, or a text as the CLI reads --from: 30d, 2026-11-01). */
  from?: Date | string;
  /** A `callbacks listen --log` file: candidates whose In Progress notification it holds are `started`. */
  log?: string;
  /** Stops the attempt listing before its next window. */
  signal?: AbortSignal;
}

/** Finished (the attempt listing), started (a listener's log), pending (window open or no end), expired. */
export type CandidateState = "finished" | "started" | "pending" | "expired";

/** A candidate invited from here, as the invitation book knows them, and their state. */
export interface InvitedCandidate {
  testId: number;
  /** Trimmed and case-folded, as the CLI's matchers compare e-mails. */
  email: string;
  name?: string;
  state: CandidateState;
  /** The last invitation id an answer gave (bulk invitations have none). */
  testInvitationId?: number;
  /** The window's end as last sent (UTC), when one was. */
  end?: string;
  /** First invited from here, and the last invitation or reminder (ISO). */
  invitedAt: string;
  lastSentAt: string;
  lastReminderAt?: string;
  /** How the last one was sent: invite, link, bulk, reattempt, remind… */
  how: string;
  /** Invitations sent, reminders included. */
  sent: number;
  /** The finished attempt, when `state` is finished. */
  finished?: { testInvitationId: number; status?: string };
}

/** Per test: candidates invited from here, and how many are in each state. */
export interface TestInvitationCounts {
  testId: number;
  invited: number;
  finished: number;
  started: number;
  pending: number;
  expired: number;
}

export interface InvitationStatus {
  tests: TestInvitationCounts[];
  candidates: InvitedCandidate[];
}

/** A record the service answers without a documented shape (a test, an employee, a certificate). */
export type Fields = z.infer<typeof s.AnyRecord>;

// Pages, spans, bulk runs

export interface Page<T> {
  items: T[];
  /** False when this was the last page. */
  more: boolean;
  /** Items in all pages, when the answer says. */
  total?: number;
}

export interface PageRequest {
  /** From 1 (default 1). */
  page?: number;
  /** Items per page: 1 to 100 (default 100). */
  pageSize?: number;
}

export interface IterateOptions {
  /** Items per request: 1 to 100 (default 100). */
  pageSize?: number;
  /** The first page (default 1). */
  page?: number;
  /**
   * Told why the iteration ended early: a page that lists no new record (the service ignores the page number),
   * the count the service announced reached while it says there are more, or `maxPages`.
   */
  onWarning?: (message: string) => void;
  /** At most this many pages (default and ceiling 10,000). */
  maxPages?: number;
}

/** A span of the attempt listing: Dates, or texts as the CLI's --from/--to read them (2026-04-01, 30d, now). */
export interface AttemptSpan {
  from: Date | string;
  to: Date | string;
  /** "completed" unless given. */
  state?: string;
  /** Windows (≤30 days each) fetched at once (default 4). */
  concurrency?: number;
  /** Stops the listing before its next window (it then throws an AssessInterruptedError). */
  signal?: AbortSignal;
  /** Called as each window's answer arrives: how many are done, of how many. */
  onWindow?: (done: number, total: number) => void;
}

export type RowStatus =
  /** Sent, and the service took it. */
  | "sent"
  /** Sent, and the service refused it (the row's request as a whole, or the row itself). */
  | "failed"
  /** Sent, but the answer was lost (or an earlier run's was): it may or may not have been processed. */
  | "uncertain"
  /** Not sent: it does not pass the operation's schema, or conflicts with another row. */
  | "invalid"
  /** Not sent: the same item as an earlier row. */
  | "duplicate"
  /** Not sent: the ledger says an earlier run's request of it was taken. */
  | "alreadyDone"
  /** Not sent: the run stopped first (an error that stops everything, or the signal). */
  | "unsent";

export interface RowOutcome<R> {
  /** The row's position in the input, from 0. */
  index: number;
  row: R;
  status: RowStatus;
  /** Why it failed, is invalid, a duplicate or uncertain. */
  error?: string;
}

export interface BulkOutcome<R> {
  rows: RowOutcome<R>[];
  counts: Record<RowStatus, number>;
  /** Refusals the service reported that match no row sent (an upsert's answer naming an unknown e-mail). */
  unmatched: string[];
  /** The ledger file, with `ledger`. */
  ledger?: string;
}

export interface BulkOptions {
  /** Rows per request: up to 1000 candidates, 100 employees (the default: the most). */
  chunkSize?: number;
  /** Requests in flight at once (default 2). */
  concurrency?: number;
  /**
   * Keep a ledger of what was sent and confirmed, and skip what an earlier run confirmed: `true` for the CLI's
   * ledger folder (ASSESS_CONFIG_DIR/ledgers: the same ledger `assess invite bulk` keeps), or a folder.
   */
  ledger?: boolean | string;
  /** With a ledger: forget it and send every row. */
  restart?: boolean;
  /** With a ledger: send again the rows whose earlier request's answer was lost. */
  retryUncertain?: boolean;
  /** Sends nothing more once aborted; the rows not sent are `unsent`, and the run throws AssessInterruptedError. */
  signal?: AbortSignal;
}

/**
 * Where a downloaded answer's bytes go: `begin` is called when the body starts (again if a retry starts it
 * over) and returns the function that receives the bytes in order (it may return a promise to wait for).
 */
export interface Download {
  begin(): (chunk: Uint8Array) => void | Promise<void>;
  /** False once the download cannot start over: a failure is then final. */
  canRestart?(): boolean;
}

/** A résumé upload: a multipart body, made anew for each attempt. */
export interface Upload {
  contentType: string;
  data: () => Uint8Array;
  /** What a dry run or a debug line shows of the body. */
  describe: unknown;
}

// The client, written out by the build as an interface (sdk/written-types.mjs): each member typed `FromRecord`
// as its record's operation's method, the others as they are here.

/**
 * A member of the client that is the operation of its place's record (api/operations/): its path's parameters,
 * then its body (named `body` unless given), resolving to what the record's `read` returns; a paged one's page,
 * and `iterate` beside it (every item).
 */
interface FromRecord<Body extends string = "body"> {
  readonly fromRecord: Body;
}

/** An operation as a method of the client: its path parameters in the path's order, then its body if any. */
type Method<O extends Read> = (
  ...args: [...PathArgs<O>, ...([BodyOf<O>] extends [never] ? [] : [body: BodyOf<O>])]
) => Promise<ResultOf<O>>;
/** `{ tests: { settings: { get: T } } }` from `"tests.settings.get"`. */
type At<Place extends string, T> = Place extends `${infer Head}.${infer Rest}`
  ? { [K in Head]: At<Rest, T> }
  : { [K in Place]: T };
type Resource<O extends Operation> = (typeof OPERATIONS)[O]["resource"];
type Place<O extends Operation> = `${Resource<O>}.${(typeof OPERATIONS)[O]["verb"]}`;
/** A paged operation gives its page at its place and every item at `<resource>.iterate`. */
type Member<O extends Operation> = O extends Paged
  ? At<Place<O>, (request?: PageRequest) => Promise<Page<ItemOf<O>>>> &
      At<`${Resource<O>}.iterate`, (options?: IterateOptions) => AsyncGenerator<ItemOf<O>>>
  : O extends Read
    ? At<Place<O>, Method<O>>
    : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/**
 * Every operation its record reads, at its place: what sdk/client.ts derives.
 * @internal
 */
export type Derived = Intersection<Member<Operation>>;
/** `members` with each `FromRecord` one as `derived` has it at the same place (`never` if it has none). */
type Resolved<Members, D> = {
  [K in keyof Members]: Members[K] extends FromRecord<string>
    ? K extends keyof D
      ? D[K]
      : never
    : Members[K] extends (...args: never[]) => unknown
      ? Members[K]
      : Resolved<Members[K], K extends keyof D ? D[K] : unknown>;
};

/**
 * What `derived` has that `members` does not show: a record with no member here, written by the build at the end
 * of its resource (`never` for what `members` shows).
 */
type Unlisted<D, Members> = {
  [K in keyof D as K extends keyof Members
    ? Members[K] extends FromRecord<string> | ((...args: never[]) => unknown)
      ? never
      : K
    : K]: K extends keyof Members ? Unlisted<D[K], Members[K]> : D[K];
};

type ClientMembers = {
  readonly tests: {
    /** One page of the account's tests. */
    list: FromRecord;
    /** Every test, page after page: `for await (const test of client.tests.iterate())`. */
    iterate: FromRecord;
    /** One test: its name, duration, number of questions and sections. */
    get: FromRecord;
    settings: {
      get: FromRecord;
      update: FromRecord<"settings">;
    };
  };
  readonly invitations: {
    /** Invites one candidate to a test. */
    create: FromRecord;
    cancel: FromRecord;
    reattempt: FromRecord;
    /**
     * Invites every candidate of `rows` (an array, or any iterable, sync or async) to a test, in requests of up
     * to 1000, and tells what became of each row.
     */
    bulk(
      testId: number,
      rows: Iterable<BulkCandidate> | AsyncIterable<BulkCandidate>,
      options?: BulkOptions & { settings?: InviteSettings },
    ): Promise<BulkOutcome<BulkCandidate>>;
    /**
     * Who was invited from this machine (the invitation book the CLI and this client keep, per profile and
     * service; read here, never written) and who has finished (the attempt listing), per test and per candidate.
     */
    status(options?: InvitationStatusOptions): Promise<InvitationStatus>;
  };
  readonly testLinks: {
    list: FromRecord;
    get: FromRecord;
    create: FromRecord;
    update: FromRecord;
    /** Invites a candidate through a test link. */
    invite: FromRecord;
  };
  readonly reports: {
    /** `reportType`: what the report breaks the score down by: 1 sections, 2 skills, 3 both. */
    get(testInvitationId: number, options?: { reportType?: 1 | 2 | 3 }): Promise<Report>;
    /** The report's PDF; given a Download, streamed into it (the size in bytes is returned). */
    pdf: {
      (testInvitationId: number): Promise<Uint8Array>;
      (testInvitationId: number, download: Download): Promise<number>;
    };
  };
  readonly attempts: {
    /** The attempts of a span of any length, in time order (one call per 30 days, a few at once). */
    list(span: AttemptSpan): Promise<TestAttempt[]>;
    /** The same one by one, as the windows' answers arrive. */
    iterate(span: AttemptSpan): AsyncGenerator<TestAttempt>;
    /** One page per ≤30-day window, in time order (an attempt is not repeated in a later window). */
    pages(span: AttemptSpan): AsyncGenerator<TestAttempt[]>;
  };
  readonly callbacks: {
    /** Asks the service to send again the callbacks of up to 100 invitations. */
    process(testInvitationIds: number[]): Promise<CallbacksOutcome>;
  };
  readonly users: {
    create: FromRecord;
    update: FromRecord;
    setStatus: FromRecord;
  };
  readonly gdpr: {
    /** Masks a candidate's personal data; resolves to the service's message. */
    mask: FromRecord;
  };
  readonly employees: {
    list: FromRecord;
    iterate: FromRecord;
    /**
     * Creates or updates every employee of `rows` (an array, or any iterable, sync or async), in requests of up
     * to 100, and tells what became of each row. Each is checked as an item of `assess employees upsert`'s JSON
     * file: dates `YYYY-MM-DD` or ISO 8601, sent as `YYYY-MM-DDTHH:mm:ssZ`.
     */
    upsert(
      rows: Iterable<EmployeeUpsertItem> | AsyncIterable<EmployeeUpsertItem>,
      options?: BulkOptions,
    ): Promise<BulkOutcome<EmployeeUpsertItem>>;
    setStatus: FromRecord;
    /** The employee's report of a test. */
    report: FromRecord;
    skillsProfile: FromRecord;
    skillsProfiles: {
      list: FromRecord;
      iterate: FromRecord;
    };
    skillGap: FromRecord;
    certificates: {
      list(employeeId: number, options?: { includeSkills?: boolean }): Promise<Fields[]>;
      add: FromRecord;
    };
    assignLearning: FromRecord;
    uploadResume(employeeId: number, upload: Upload): Promise<Fields>;
  };
  /** Ends the client's connections (open ones would keep the process alive a few seconds more). */
  close(): Promise<void>;
};
export type AssessClient = Resolved<ClientMembers, Derived> & Unlisted<Derived, ClientMembers>;

export interface CreateClientOptions {
  /** The API key (sent as `x-api-key`); else ASSESS_API_KEY, else the profile's. */
  apiKey?: string;
  /** The assessment service's base URL; else ASSESS_BASE_URL, else the profile's. */
  baseUrl?: string;
  /** The employee skills service's base URL; else ASSESS_SKILLS_BASE_URL, else the profile's. */
  skillsBaseUrl?: string;
  /** Milliseconds one attempt of a request may take (default 30000). */
  timeout?: number;
  /** Retries of a request that failed in a way worth retrying (default 3; 0 to 20). */
  retries?: number;
  /** A profile of the CLI's configuration (`assess auth login --profile NAME`); else ASSESS_PROFILE, else "default". */
  profile?: string;
  /** The environment to read ASSESS_* settings from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Allow a plain http:// base URL that is not this machine (the key travels in a header). */
  allowHttp?: boolean;
  /** One line per request and answer; the key never reaches it. */
  debug?: (line: string) => void;
  /** Told of each retry's wait ("HTTP 503 from …; retrying in 2s"). */
  onRetry?: (message: string) => void;
  /**
   * Record each write in the audit log of the config folder, as the CLI does (default true; `assess audit` shows
   * it): a write is refused, nothing sent, when the log cannot be kept there (a read-only home): then `false`.
   */
  audit?: boolean;
}
