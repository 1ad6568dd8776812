/**
 * The typed client of both services, by resource and verb (`client.tests.list`, `client.invitations.cancel`,
 * `client.employees.upsert`): what `import { createClient } from "assess-cli"` gives, and what the CLI's commands
 * call (context.ts). Each operation is at `client.<resource>.<verb>` of its record (api/operations/), sent and
 * read by it (`Api`); this layer adds what code wants on top: pages as async iterators, the attempts of any
 * span, bulk runs from iterables.
 */
import type { Download, RequestOptions } from "../api/client.js";
import {
  type Api,
  type BodyOf,
  type Page,
  type Paged,
  type PathArgs,
  paginate,
  type Read,
  type ResultOf,
} from "../api/endpoints.js";
import { OPERATIONS } from "../api/operations/index.js";
import type * as s from "../api/schemas.js";
import type * as z from "../parse/zod.js";
import { showAs } from "../redact.js";
import { MAX_BULK_CANDIDATES, MAX_UPSERT_EMPLOYEES } from "../spec/limits.js";
import type * as t from "./types.js";
import type {
  AssessClient,
  AttemptSpan,
  BulkOptions,
  BulkOutcome,
  InviteSettings,
  IterateOptions,
  PageRequest,
  Upload,
} from "./types.js";

type Fields = Record<string, unknown>;

const DEFAULT_PAGE_SIZE = 100;

/** Items, page after page, until the last (or a page that repeats the one before). */
async function* items<T>(
  fetch: (page: number, pageSize: number) => Promise<Page<T>>,
  options: IterateOptions = {},
): AsyncGenerator<T> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  for await (const page of paginate((n) => fetch(n, pageSize), options.page ?? 1, options.onWarning)) {
    yield* page;
  }
}

/** The listing's code (windows, dates) is loaded on first use: most commands never list attempts. */
async function* attemptPagesOf(api: Api, span: AttemptSpan): AsyncGenerator<s.TestAttempt[]> {
  const { attemptPages, spanOf } = await import("./attempts.js");
  const { from: _from, to: _to, ...options } = span;
  yield* attemptPages(api, spanOf(span), options);
}

async function* flat<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

/** An operation as a method of the client: its path parameters in the path's order, then its body if any. */
type Method<O extends Read> = (
  ...args: [...PathArgs<O>, ...([BodyOf<O>] extends [never] ? [] : [body: BodyOf<O>])]
) => Promise<ResultOf<O>>;

/** The client: each operation at `<resource>.<verb>` of its record (api/operations/). */
export class Client implements AssessClient {
  constructor(
    /** Sends each operation by its record (api/endpoints.ts). */
    readonly api: Api,
    /** Where `ledger: true` finds the ledger folder (ASSESS_CONFIG_DIR), as the CLI does. */
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    // The environment may hold ASSESS_API_KEY: shown, the client is its settings with the key redacted.
    showAs(this, () => ({ options: this.api.client.options }));
  }

  readonly tests = {
    ...this.paged("listTests"),
    get: this.op("getTest"),
    settings: { get: this.op("getSettings"), update: this.op("updateSettings") },
  };

  readonly invitations = {
    create: this.op("invite"),
    cancel: this.op("cancelInvitation"),
    reattempt: this.op("reattempt"),
    /**
     * Invites every candidate of `rows` (an array, or any iterable, sync or async) to a test, in requests of up
     * to 1000, and returns what became of each row. `settings` are the invitations' (start, end, time zone,
     * proctoring); `ledger` keeps what was confirmed, so a rerun sends nothing twice.
     */
    bulk: async (
      testId: number,
      rows: Iterable<s.BulkCandidate> | AsyncIterable<s.BulkCandidate>,
      options: BulkOptions & { settings?: InviteSettings } = {},
    ): Promise<BulkOutcome<s.BulkCandidate>> => {
      const { runRows, prepareCandidate, ledgerTarget, ledgerDir, checkInviteSettings } = await import(
        "./bulk.js"
      );
      const { settings: given = {}, ...bulk } = options;
      const settings = checkInviteSettings(given);
      return runRows<s.BulkCandidate, s.BulkCandidate>(
        rows,
        {
          kind: "invite",
          maxChunk: MAX_BULK_CANDIDATES,
          prepare: prepareCandidate,
          target: () => ({ ...ledgerTarget(this.api.client.options, "assess"), testId }),
          defaultLedgerDir: () => ledgerDir(this.env),
          send: async (chunk) =>
            (await this.api.bulkInvite(testId, settings, chunk))
              ? undefined
              : { refused: "the service answered false: no candidate of this request was invited" },
        },
        bulk,
      );
    },
  };

  readonly testLinks = {
    list: this.op("listLinks"),
    get: this.op("getLink"),
    create: this.op("createLink"),
    update: this.op("updateLink"),
    invite: this.op("inviteThroughLink"),
  };

  readonly reports = {
    get: (testInvitationId: number, options: { reportType?: 1 | 2 | 3 } = {}): Promise<s.Report> =>
      this.api.call("getReport", [testInvitationId], undefined, {
        query: { reportType: options.reportType },
      }),
    /**
     * The report's PDF: its bytes, or, given a `Download`, streamed into it as they arrive (its size in bytes
     * is returned).
     */
    pdf: ((testInvitationId: number, download?: Download): Promise<Buffer | number> => {
      if (download) return this.api.getReportPdf(testInvitationId, download);
      const chunks: Uint8Array[] = [];
      return this.api
        .getReportPdf(testInvitationId, {
          begin: () => {
            chunks.length = 0;
            return (chunk) => {
              chunks.push(chunk);
            };
          },
        })
        .then(() => Buffer.concat(chunks));
    }) as {
      (testInvitationId: number): Promise<Buffer>;
      (testInvitationId: number, download: Download): Promise<number>;
    },
  };

  readonly attempts = {
    /**
     * The attempts of a span of any length, in time order: the service lists at most 30 days per call, so
     * longer spans take one call per 30 days (a few at once).
     */
    list: async (span: AttemptSpan): Promise<s.TestAttempt[]> => {
      const all: s.TestAttempt[] = [];
      for await (const page of this.attempts.pages(span)) all.push(...page);
      return all;
    },
    /** The attempts of a span one by one, as their windows' answers arrive. */
    iterate: (span: AttemptSpan): AsyncGenerator<s.TestAttempt> => flat(this.attempts.pages(span)),
    /** One page per ≤30-day window, in time order (an attempt is not repeated in a later window). */
    pages: (span: AttemptSpan): AsyncGenerator<s.TestAttempt[]> => attemptPagesOf(this.api, span),
  };

  readonly callbacks = {
    /** Asks the service to send again the callbacks of up to 100 invitations. */
    process: (testInvitationIds: number[]) => this.api.processCallbacks(testInvitationIds),
  };

  readonly users = {
    create: this.op("createUser"),
    update: this.op("updateUser"),
    setStatus: this.op("setUserStatus"),
  };

  readonly gdpr = { mask: this.op("maskCandidate") };

  readonly employees = {
    ...this.paged("listEmployees"),
    /**
     * Creates or updates every employee of `rows` (an array, or any iterable, sync or async), in requests of
     * up to 100, and returns what became of each row. With `ledger`, an employee a run confirmed is not sent
     * again unless it changed.
     */
    upsert: async (
      rows:
        | Iterable<z.input<typeof s.EmployeeUpsertItem>>
        | AsyncIterable<z.input<typeof s.EmployeeUpsertItem>>,
      options: BulkOptions = {},
    ): Promise<BulkOutcome<z.input<typeof s.EmployeeUpsertItem>>> => {
      const { runRows, prepareEmployee, readUpsertAnswer, ledgerTarget, ledgerDir } = await import(
        "./bulk.js"
      );
      return runRows<z.input<typeof s.EmployeeUpsertItem>, s.EmployeeUpsertItem>(
        rows,
        {
          kind: "upsert",
          maxChunk: MAX_UPSERT_EMPLOYEES,
          prepare: prepareEmployee,
          target: () => ledgerTarget(this.api.client.options, "skills"),
          defaultLedgerDir: () => ledgerDir(this.env),
          send: async (chunk) => readUpsertAnswer(chunk, await this.api.upsertEmployees(chunk)),
        },
        options,
      );
    },
    setStatus: this.op("setEmployeeStatus"),
    report: this.op("getEmployeeReport"),
    skillsProfile: this.op("getSkillsProfile"),
    skillsProfiles: this.paged("listSkillsProfiles"),
    skillGap: this.op("getSkillGap"),
    certificates: {
      list: (employeeId: number, options: { includeSkills?: boolean } = {}): Promise<Fields[]> =>
        this.api.call("listCertificates", [employeeId], undefined, {
          query: { includeSkills: options.includeSkills === true || undefined },
        }),
      add: this.op("addCertificate"),
    },
    assignLearning: this.op("assignLearning"),
    /** Uploads a résumé: `data` is called again for each attempt (a retry sends the body anew). */
    uploadResume: (
      employeeId: number,
      upload: Upload | NonNullable<RequestOptions["raw"]>,
    ): Promise<Fields> =>
      this.api.uploadResume(employeeId, {
        ...upload,
        data: () => {
          const data = upload.data();
          return data instanceof Uint8Array && !Buffer.isBuffer(data)
            ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
            : data;
        },
      }),
  };

  /** Ends the client's connections (open ones would keep the process alive a few seconds more). */
  close(): Promise<void> {
    return this.api.client.close();
  }

  /** An operation sent and read by its record: its path parameters, then its body. */
  private op<O extends Read>(operation: O): Method<O> {
    const count = OPERATIONS[operation].path.split("{").length - 1;
    return ((...args: unknown[]) =>
      this.api.call(
        operation,
        args.slice(0, count) as PathArgs<O>,
        args[count] as BodyOf<O>,
      )) as unknown as Method<O>;
  }

  /** A paged operation's one page (`list`) and every item, page after page (`iterate`). */
  private paged<O extends Paged>(operation: O) {
    const page = (n: number, size: number) => this.api.page(operation, n, size);
    return {
      list: ({ page: n = 1, pageSize = DEFAULT_PAGE_SIZE }: PageRequest = {}) => page(n, pageSize),
      iterate: (options?: IterateOptions) => items(page, options),
    };
  }
}

/**
 * The public types of types.ts are the schemas' types written out (a consumer has no zod): the compiler checks
 * here that each is exactly its schema's type, both ways.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function same<A, B>(_proof: Same<A, B>): void {}
same<t.InviteBody, s.InviteBody>(true);
same<t.LinkInviteBody, s.LinkInviteBody>(true);
same<t.ReattemptBody, s.ReattemptBody>(true);
same<t.TestLinkBody, s.TestLinkBody>(true);
same<t.InviteSettings, z.input<typeof s.BulkInviteSettings>>(true);
same<t.BulkCandidate, s.BulkCandidate>(true);
same<t.EmployeeUpsertItem, z.input<typeof s.EmployeeUpsertItem>>(true);
same<t.UserCreateBody, z.input<typeof s.UserCreateBody>>(true);
same<t.UserUpdateBody, z.input<typeof s.UserUpdateBody>>(true);
same<t.UserStatusBody, z.input<typeof s.UserStatusBody>>(true);
same<t.GdprBody, z.input<typeof s.GdprBody>>(true);
same<t.Test, s.Test>(true);
same<t.TestSettings, s.TestSettings>(true);
same<t.Invitation, s.Invitation>(true);
same<t.TestLink, s.TestLink>(true);
same<t.TestAttempt, s.TestAttempt>(true);
same<t.Report, s.Report>(true);
same<t.User, s.User>(true);
