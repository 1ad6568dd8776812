/**
 * The typed client of both services, by resource and verb (`client.tests.list`): what `createClient` gives and
 * what the CLI's commands call (context.ts). Each operation is sent and read by its record (`Api`), and is at
 * its record's `<resource>.<verb>` by derivation; written here are only the members that are not one
 * operation sent as its record says: pages as async iterators, the attempts of any span, bulk runs from
 * iterables, the PDF, the upload, and the reads that take options.
 */

import type { Api, Paged, Read } from "../api/endpoints.js";
import { operations, pathParameters } from "../api/operations/index.js";
import { paginate } from "../api/pager.js";
import type * as s from "../api/schemas.js";
import type { Download, RequestOptions } from "../api/transport.js";
import { append } from "../arrays.js";
import type { InvitationBook } from "../core/invitation-book.js";
import { showAs } from "../redact.js";
import type * as t from "./types.js";
import type { AssessClient, AttemptSpan, Derived, IterateOptions, PageRequest, Upload } from "./types.js";

const DEFAULT_PAGE_SIZE = 100;

/** The listing's code (windows, dates) is loaded on first use: most commands never list attempts. */
async function* attemptPages(api: Api, { from, to, ...options }: AttemptSpan) {
  const [{ attemptWindows }, { spanOf }] = await Promise.all([
    import("../core/finished-attempts.js"),
    import("../core/periods.js"),
  ]);
  for await (const { attempts } of attemptWindows(api, spanOf({ from, to }), options)) yield attempts;
}

async function* flat<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

/** The client: each operation at `<resource>.<verb>` of its record; the methods' docs are AssessClient's. */
export class Client implements AssessClient {
  constructor(
    readonly api: Api,
    /** Where `ledger: true` finds the ledger folder (ASSESS_CONFIG_DIR), as the CLI does. */
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** The invitation book `api` records in (core/invitation-book.ts): what `invitations.status` reads. */
    private readonly book?: InvitationBook,
  ) {
    // The environment may hold ASSESS_API_KEY: shown, the client is its settings with the key redacted.
    showAs(this, () => ({ options: this.api.transport.options }));
  }

  // Class fields are set before the constructor's parameter properties: derived methods read `api` when called.
  private readonly derived = derive(this);

  readonly tests = this.derived.tests;

  readonly invitations = {
    ...this.derived.invitations,
    bulk: async (...args: Parameters<AssessClient["invitations"]["bulk"]>) =>
      (await import("./bulk.js")).inviteRows(this.api, this.env, ...args),
    status: async (options: t.InvitationStatusOptions = {}): Promise<t.InvitationStatus> =>
      (await import("./invitations.js")).invitationsStatus(this.api, this.book, options),
  };

  readonly testLinks = this.derived.testLinks;

  readonly reports = {
    get: ((testInvitationId, options = {}) =>
      this.api.call("getReport", [testInvitationId], undefined, {
        query: { reportType: options.reportType },
      })) satisfies AssessClient["reports"]["get"],
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
    list: async (span: AttemptSpan): Promise<s.TestAttempt[]> => {
      const all: s.TestAttempt[] = [];
      for await (const page of this.attempts.pages(span)) append(all, page);
      return all;
    },
    iterate: (span: AttemptSpan): AsyncGenerator<s.TestAttempt> => flat(this.attempts.pages(span)),
    pages: (span: AttemptSpan): AsyncGenerator<s.TestAttempt[]> => attemptPages(this.api, span),
  };

  readonly callbacks = {
    process: (testInvitationIds: number[]) => this.api.processCallbacks(testInvitationIds),
  };

  readonly users = this.derived.users;

  readonly gdpr = this.derived.gdpr;

  readonly employees = {
    ...this.derived.employees,
    upsert: async (...args: Parameters<AssessClient["employees"]["upsert"]>) =>
      (await import("./bulk.js")).upsertRows(this.api, this.env, ...args),
    certificates: {
      ...this.derived.employees.certificates,
      list: ((employeeId, options = {}) =>
        this.api.call("listCertificates", [employeeId], undefined, {
          query: { includeSkills: options.includeSkills === true || undefined },
        })) satisfies AssessClient["employees"]["certificates"]["list"],
    },
    /** `data` is called again for each attempt (a retry sends the body anew). */
    uploadResume: (
      employeeId: number,
      upload: Upload | NonNullable<RequestOptions["raw"]>,
    ): Promise<t.Fields> =>
      this.api.call("uploadResume", [employeeId], undefined, {
        raw: {
          ...upload,
          data: () => {
            const data = upload.data();
            return data instanceof Uint8Array && !Buffer.isBuffer(data)
              ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
              : data;
          },
        },
      }),
  };

  close(): Promise<void> {
    return this.api.transport.close();
  }
}

/**
 * Each operation its record reads, at its record's place: sent with its path parameters, then its body; a
 * paged one gives its page and, beside it, `iterate` (through the one pager: api/pager.ts says where it ends).
 * The client's own members take the place of any derived here.
 */
function derive(client: { readonly api: Api }): Derived {
  const tree: t.Fields = {};
  for (const [operation, record] of operations()) {
    let node = tree;
    for (const key of record.resource.split(".")) {
      node[key] ??= {};
      node = node[key] as t.Fields;
    }
    if (record.pagination) {
      const page = (n: number, size: number) => client.api.page(operation as Paged, n, size);
      node[record.verb] = ({ page: n = 1, pageSize = DEFAULT_PAGE_SIZE }: PageRequest = {}) =>
        page(n, pageSize);
      node.iterate = ({
        pageSize = DEFAULT_PAGE_SIZE,
        page: first = 1,
        onWarning,
        maxPages,
      }: IterateOptions = {}) =>
        flat(paginate((n) => page(n, pageSize), { first, warn: onWarning, maxPages }));
    } else if (record.read) {
      const count = pathParameters(record.path).length;
      node[record.verb] = (...args: unknown[]) =>
        client.api.call(operation as Read, args.slice(0, count) as never, args[count] as never);
    }
  }
  return tree as Derived;
}
