/** The API layer: each operation sent and read by its record (operations/), typed from it; and paging. */
import type { AuditedWrite, AuditLog } from "../config/audit.js";
import { ApiError, UncertainError } from "../errors.js";
import { type Fields, field, isRecord } from "../fields.js";
import { serviceId } from "../identity.js";
import * as z from "../parse/zod.js";
import { showAs } from "../redact.js";
import { type JsonBytes, jsonArray } from "./json.js";
import {
  isSkills,
  OPERATIONS,
  type Operation,
  type OperationRecord,
  pathParameters,
} from "./operations/index.js";
import {
  type Answer,
  describeText,
  isHtml,
  type Page,
  RefusedError,
  read,
  readPage,
  unwrap,
} from "./read.js";
import * as s from "./schemas.js";
import {
  type ApiName,
  type ApiResponse,
  type Download,
  type RequestOptions,
  readErrorBody,
  type Transport,
} from "./transport.js";

export type { Operation } from "./operations/index.js";
export type { Page } from "./read.js";

type Record_<O extends Operation> = (typeof OPERATIONS)[O];
type Ids<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [number, ...Ids<Rest>] : [];

/** The path parameters of an operation, in the path's order. */
export type PathArgs<O extends Operation> = Ids<Record_<O>["path"]>;
/** The body an operation takes, as its record checks it. */
export type BodyOf<O extends Operation> =
  Record_<O> extends { body: infer B }
    ? B extends z.ZodType
      ? z.input<B>
      : B extends "fields"
        ? Fields
        : never
    : never;
/** The operations whose records read their answer (the others have a function of their own below). */
export type Read = { [O in Operation]: Record_<O> extends { read: object } ? O : never }[Operation];
/** What an operation's record reads its answer as. */
export type ResultOf<O extends Read> = Record_<O> extends { read: (answer: Answer) => infer T } ? T : never;
/** The operations whose records read their answer as a page. */
export type Paged = { [O in Operation]: Record_<O> extends { pagination: object } ? O : never }[Operation];
export type ItemOf<O extends Paged> =
  Record_<O>["pagination"]["items"] extends z.ZodType<infer T> ? T : never;

/** What a call tells the invitation book (`Api.onInvited`) beyond its request: why it was sent, and to whom. */
export interface BookNote {
  /** Why it was sent (`remind`), when not the operation's own kind. */
  how?: string;
  /** A reattempt's candidate, when the caller knows it (its request names only the attempt). */
  invitee?: { testId: number; email: string; name?: string };
}

type Extra = Pick<RequestOptions, "query" | "raw"> & { book?: BookNote };

/**
 * An invitation the service accepted, as the invitation book (core/invitation-book.ts) records it: what the
 * request said and the answer gave. Told by the one place each invite operation is sent (`Api`), whoever sent it.
 */
export interface SentInvitation {
  how: string;
  testId?: number;
  email?: string;
  name?: string;
  testInvitationId?: number;
  /** A reattempt's earlier attempt. */
  previous?: number;
  /** The window's end as sent (UTC), when one was. */
  end?: string;
  /** The invitation's other settings as sent (callback URLs, time zone, proctoring): a reminder sends them again. */
  keep?: Fields;
}

/** The settings of an invite body a reminder sends again (the service resets an invitation to what it is sent). */
const KEPT = [
  "callbackURL",
  "redirectURL",
  "hideInstruction",
  "stakeholderEmails",
  "timeZoneId",
  "ProctoringMode",
];

/**
 * The operations, sent and read by their records (operations/); those whose requests or answers are their own
 * (bulk chunks, callbacks, the attempt listing, the PDF) have a function of their own.
 */
export class Api {
  private unread?: { data: unknown; warning: string };
  /**
   * Told of every invitation the service accepted (single, through a link, bulk, reattempt), once its answer
   * came; it must not throw (the invitation was sent whatever it does).
   */
  onInvited?: (sent: SentInvitation[]) => void;

  /** `audit`: where each write is recorded, by whom (config/audit.ts); none, none is. */
  constructor(
    readonly transport: Transport,
    readonly audit?: AuditLog,
  ) {
    showAs(this, () => ({ transport: this.transport }));
  }

  async call<O extends Read>(
    operation: O,
    params: PathArgs<O>,
    body?: BodyOf<O>,
    extra: Extra = {},
  ): Promise<ResultOf<O>> {
    const record: OperationRecord = OPERATIONS[operation];
    const checked =
      record.body === "empty" ? {} : typeof record.body === "object" ? record.body.parse(body) : body;
    const { book, ...rest } = extra;
    const answer = await this.send(operation, params, { ...rest, body: checked }, undefined, true);
    let result: ResultOf<O>;
    try {
      result = record.read!(answer) as ResultOf<O>;
    } catch (error) {
      // CLI.md: any 2xx is success. A write was done: failing it would have it sent again (an invitation twice).
      if (record.effect === "read" || !(error instanceof ApiError)) throw error;
      const warning = unreadWarning(record, params, answer, error);
      this.transport.options.warn(warning);
      this.unread = { data: answer.data, warning };
      result = answer.data as ResultOf<O>;
    }
    if (
      this.onInvited &&
      (operation === "invite" || operation === "inviteThroughLink" || operation === "reattempt")
    )
      this.told(invitationSent(operation, params, checked, result, book));
    return result;
  }

  private told(sent: SentInvitation[]): void {
    if (sent.length > 0) this.onInvited?.(sent);
  }

  /**
   * The warning `call` gave when it returned `value`, as it came, for the last write whose answer it could not
   * read; else undefined.
   */
  unreadWarning(value: unknown): string | undefined {
    return this.unread !== undefined && this.unread.data === value ? this.unread.warning : undefined;
  }

  async page<O extends Paged>(operation: O, pageNumber: number, pageSize: number): Promise<Page<ItemOf<O>>> {
    const { page, size, items, keys, what } = OPERATIONS[operation].pagination;
    const query = { [page]: pageNumber, [size]: pageSize };
    const answer = await this.send(operation, [] as PathArgs<O>, { query });
    return readPage(items as unknown as z.ZodType<ItemOf<O>>, answer, [...keys], what, pageNumber, pageSize);
  }

  /** Only an explicit `false` answer means the service refused the chunk; any other 2xx is success. */
  async bulkInvite(
    testId: number,
    settings: s.BulkInviteSettings,
    candidates: readonly JsonBytes<s.BulkCandidate>[],
  ): Promise<boolean> {
    checkCount("bulkInvite", candidates.length);
    const head = JSON.stringify(s.BulkInviteSettings.parse(settings));
    const json = jsonArray(candidates, `${head.slice(0, -1)}${head === "{}" ? "" : ","}"candidates":[`, "]}");
    const { data } = await this.send("bulkInvite", [testId], { json }, candidates.length);
    const accepted = !saysNo(data);
    if (accepted && this.onInvited) {
      const keep = kept({ timeZoneId: settings.timezoneId, ProctoringMode: settings.proctoringMode });
      // The candidates as sent: the body read back whole (one parse, not one per candidate).
      const sent = (JSON.parse(json.toString()) as { candidates: s.BulkCandidate[] }).candidates;
      this.told(
        sent.map(({ email, name }) => ({
          how: "bulk",
          testId,
          email,
          name,
          end: settings.endDateTime,
          keep,
        })),
      );
    }
    return accepted;
  }
  /** Streams the PDF into `download`; returns its size in bytes. */
  async getReportPdf(testInvitationId: number, download: Download): Promise<number> {
    const res = await this.transport.request({
      ...this.target("getReportPdf", [testInvitationId]),
      download,
    });
    if (typeof res.data === "number") return res.data;
    // JSON instead: the PDF in base64 ("JVBERi" is "%PDF"), in any field, is the PDF; a link is named.
    const texts = isRecord(res.data) ? Object.values(res.data) : [res.data];
    const base64 = texts.find((value) => typeof value === "string" && /^JVBERi[\w+/=\s]*$/.test(value));
    if (typeof base64 === "string") {
      const bytes = Buffer.from(base64, "base64");
      await download.begin()(bytes);
      return bytes.length;
    }
    const link = texts.find((value) => typeof value === "string" && /^https?:\/\//i.test(value));
    throw new ApiError(res.status, [
      link === undefined
        ? "The service did not answer with a PDF"
        : `The service answered with a link to the PDF, not the PDF: ${String(link)}`,
    ]);
  }
  /**
   * At most 30 days per call; callers split longer spans. `signal` stops the read at once (Ctrl-C, or a bulk
   * file refused while its look-up of who finished is in flight).
   */
  async listAttempts(
    startDateTime: string,
    endDateTime: string,
    state = "completed",
    signal?: AbortSignal,
  ): Promise<s.TestAttempt[]> {
    const body = { StartDateTime: startDateTime, EndDateTime: endDateTime };
    return OPERATIONS.listAttempts.read(
      await this.send("listAttempts", [], { query: { state }, body, signal }),
    );
  }
  /** A 401 that names ids refuses those ids, not the key: they come back as `invalid`, nothing queued. */
  async processCallbacks(
    ids: number[],
  ): Promise<{ successful: number[]; failed: number[]; invalid: number[] }> {
    try {
      const answer = await this.send(
        "processCallbacks",
        [],
        { body: { testinvitationIds: ids } },
        ids.length,
        true,
      );
      const result = read(s.CallbacksResult, answer, "callbacks result", bulkAnswer(answer));
      const successful = idsOf(result.testinvitationIds?.successful);
      const failed = idsOf(result.testinvitationIds?.failed);
      // A failure that names no id it can be read as: no id the answer does not call queued is claimed so.
      if (failed.unread) {
        const queued = new Set(successful.ids);
        failed.ids.push(...ids.filter((id) => !queued.has(id) && !failed.ids.includes(id)));
      }
      return { successful: successful.ids, failed: failed.ids, invalid: [] };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // API.md 4.3 lists them after the message; a service may name them in it ("Invalid ids: 5, 6"):
        // then only the ids sent count, so a number of another kind in the text is no id.
        const sent = new Set(ids);
        const named = error.messages.flatMap((m) => (m.match(/\b\d+\b/g) ?? []).map(Number));
        const invalid = error.ids.length > 0 ? error.ids : named.filter((id) => sent.has(id));
        if (invalid.length > 0) return { successful: [], failed: [], invalid: [...new Set(invalid)] };
      }
      throw error;
    }
  }
  async upsertEmployees(items: readonly JsonBytes<s.EmployeeUpsertItem>[]): Promise<s.UpsertResult> {
    checkCount("upsertEmployees", items.length);
    const json = jsonArray(items);
    const answer = await this.send("upsertEmployees", [], { json }, items.length, true);
    return read(s.UpsertResult, answer, "upsert result", bulkAnswer(answer));
  }

  private target<O extends Operation>(operation: O, params: PathArgs<O>) {
    const { method, path: template } = OPERATIONS[operation];
    const values: readonly number[] = params;
    let at = 0;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = values[at++];
      if (value === undefined) throw new Error(`missing path parameter ${name} for ${operation}`);
      return encodeURIComponent(String(value));
    });
    const api: ApiName = isSkills(template) ? "skills" : "assess";
    return { method, path, api };
  }

  /**
   * An operation's request sent, and its answer with where it came from. A read (a POST too) is retried and
   * replayed as a GET is. An HTML page after a write (a proxy's login page that says 200) is refused here,
   * whatever the operation: it may or may not have been processed. A write is recorded in the audit log with
   * its outcome (`count`: a bulk request's items); with `refuseNo`, a write answered with a no (`saysNo`) fails.
   */
  private async send<O extends Operation>(
    operation: O,
    params: PathArgs<O>,
    extra: Pick<RequestOptions, "query" | "body" | "json" | "raw" | "signal"> = {},
    count?: number,
    refuseNo = false,
  ): Promise<Answer> {
    const record: OperationRecord = OPERATIONS[operation];
    const safe = record.effect === "read";
    const target = this.target(operation, params);
    const sent = async () => {
      const res = await this.transport.request({ ...target, ...extra, safe });
      const answer = this.answer(record, target, extra, res);
      if (refuseNo && !safe && saysNo(answer.data)) throw refusal(answer);
      return answer;
    };
    if (safe) return sent();
    const names = pathParameters(record.path);
    const ids = Object.fromEntries(names.map((name, at) => [name, (params as readonly number[])[at]!]));
    const write: AuditedWrite = {
      operation,
      method: target.method,
      ...(names.length > 0 ? { target: ids } : {}),
      ...(count !== undefined ? { count } : {}),
    };
    return this.audited(write, sent);
  }

  /**
   * A request of `assess api`: a write is recorded as the operation whose route it is, or as `api` with its
   * path (a segment that is not a plain word or id shown as `…`).
   */
  async raw(request: RequestOptions): Promise<ApiResponse> {
    if (request.method === "GET" || request.safe) return this.transport.request(request);
    const named = routeOf(request.method, request.path);
    const write: AuditedWrite = named
      ? {
          operation: named.operation,
          method: request.method,
          ...(named.target ? { target: named.target } : {}),
        }
      : { operation: "api", method: request.method, target: { path: plainPath(request.path) } };
    return this.audited(write, () => this.transport.request(request));
  }

  /** Sends a write, its line in the audit log written with its outcome (the log opened first: it may refuse). */
  private async audited<T>(write: AuditedWrite, send: () => Promise<T>): Promise<T> {
    // A dry run sends no write.
    if (this.audit === undefined || this.transport.options.dryRun) return send();
    const line = this.audit.open(write, this.transport.options.warn);
    try {
      const result = await send();
      line.done();
      return result;
    } catch (error) {
      line.done(error);
      throw error;
    }
  }

  /** An operation's answer, with where it came from. */
  private answer(
    record: OperationRecord,
    target: ReturnType<Api["target"]>,
    extra: Pick<RequestOptions, "query">,
    res: ApiResponse,
  ): Answer {
    const safe = record.effect === "read";
    const given = Object.entries(extra.query ?? {}).filter(([, value]) => value !== undefined);
    const query = new URLSearchParams(given.map(([key, value]): [string, string] => [key, String(value)]));
    const answer: Answer = {
      status: res.status,
      data: record.raw ? res.data : unwrap(res.data),
      method: target.method,
      path: query.size > 0 ? `${target.path}?${query}` : target.path,
      skills: target.api === "skills",
    };
    if (res.notJson) answer.notJson = true;
    if (res.notJson && !safe && isHtml(String(res.data))) {
      throw new UncertainError(
        target.method,
        this.transport.url(target.api, answer.path),
        `the service answered HTTP ${res.status} with ${describeText(res.data)}`,
      );
    }
    return answer;
  }
}

/**
 * A write's 2xx answer that says it was not done: `false` (bulk invite's documented answer is a Boolean), or a
 * record whose `result`, `success` or `isSuccess` is false (`{"success": false, "message": "…"}`).
 */
function saysNo(data: unknown): boolean {
  const verdict = isRecord(data)
    ? (field(data, "result") ?? field(data, "success") ?? field(data, "isSuccess"))
    : data;
  return verdict === false || (typeof verdict === "string" && verdict.trim().toLowerCase() === "false");
}

/** A write the service said no to, with its messages (exit 1): not a success, whatever the status. */
function refusal(answer: Answer): RefusedError {
  const said = isRecord(answer.data) ? readErrorBody(answer.status, answer.data).messages : [];
  const reasons = said.filter((message) => !message.startsWith("The service answered HTTP"));
  const shown = JSON.stringify(answer.data) ?? String(answer.data);
  const what = `The service answered ${shown.length > 120 ? `${shown.slice(0, 119)}…` : shown}: it did not do it`;
  return new RefusedError(answer.status, [...reasons, what], {
    body: answer.data,
    method: answer.method,
    url: answer.path,
  });
}

/** What an accepted invite, link invite or reattempt tells the book. */
function invitationSent(
  operation: "invite" | "inviteThroughLink" | "reattempt",
  params: readonly number[],
  body: unknown,
  answer: unknown,
  note: BookNote = {},
): SentInvitation[] {
  const sent = isRecord(body) ? body : {};
  const text = (key: string) => {
    const value = field(sent, key);
    return typeof value === "string" ? value : undefined;
  };
  const testInvitationId = serviceId(field(answer, "testInvitationId"));
  if (operation === "reattempt") {
    const { invitee } = note;
    return [
      {
        how: note.how ?? "reattempt",
        ...(invitee && { testId: invitee.testId, email: invitee.email, name: invitee.name }),
        previous: params[0],
        testInvitationId,
        end: text("EndDateTime"),
        keep: kept({
          callbackURL: field(sent, "CallbackUrl"),
          redirectURL: field(sent, "RedirectUrl"),
          hideInstruction: field(sent, "hideInstruction"),
          timeZoneId: field(sent, "TimeZoneId"),
        }),
      },
    ];
  }
  // An anonymous invitation (the service makes up the e-mail) is no one to follow.
  const email = text("emailId");
  if (email === undefined) return [];
  return [
    {
      how: note.how ?? (operation === "invite" ? "invite" : "link"),
      testId: params[0],
      email,
      name: text("fullName"),
      testInvitationId,
      end: text("endDateTime"),
      keep: kept(Object.fromEntries(KEPT.map((key) => [key, field(sent, key)]))),
    },
  ];
}

/** The settings given (undefined when none). */
function kept(values: Fields): Fields | undefined {
  const given = Object.entries(values).filter(([, value]) => value !== undefined && value !== null);
  return given.length > 0 ? Object.fromEntries(given) : undefined;
}

/** The operation whose route a raw request's method and path are (ids for its parameters), if any. */
function routeOf(
  method: string,
  path: string,
): { operation: string; target?: Record<string, number> } | undefined {
  const bare = path.split("?")[0]!.replace(/\/+$/, "");
  for (const [operation, record] of Object.entries(OPERATIONS) as Array<[string, OperationRecord]>) {
    if (record.method !== method) continue;
    const route = new RegExp(`^${record.path.replace(/\{\w+\}/g, "(\\d+)")}$`);
    const match = route.exec(bare);
    if (!match) continue;
    const names = pathParameters(record.path);
    if (names.length === 0) return { operation };
    return { operation, target: Object.fromEntries(names.map((name, at) => [name, Number(match[at + 1])])) };
  }
  return undefined;
}

/** A path as the audit log shows it: a segment that is not a plain word or id (an e-mail, say) is `…`. */
function plainPath(path: string): string {
  return path
    .split("?")[0]!
    .split("/")
    .map((segment) => (/^[\w.-]{0,64}$/.test(segment) ? segment : "…"))
    .join("/");
}

/** Says that a write was accepted though its answer cannot be read, and where to see whether it was done. */
function unreadWarning(record: OperationRecord, params: readonly number[], answer: Answer, error: ApiError) {
  const names = pathParameters(record.path);
  const check = (record.check ?? "in the service that it was done").replace(/\{(\w+)\}/g, (_, name: string) =>
    String(params[names.indexOf(name)]),
  );
  const problem = answer.data === undefined ? "it was empty" : error.messages.join("; ");
  return (
    `The service accepted ${answer.method} ${answer.path} (HTTP ${answer.status}): it was done, but its answer could not be read (${problem}). ` +
    `Check ${check} before running it again.`
  );
}

/**
 * The ids of a list of callbacks process's answer: ids as identity.ts accepts them (integers, canonical digits),
 * or records naming one (`{"testInvitationId": 5, "reason": "…"}`: API.md types the items of `failed` only as
 * an Array); `unread`, whether an item named none (`"007"` is none: Number() would make it another id).
 */
function idsOf(list: unknown): { ids: number[]; unread: boolean } {
  const ids: number[] = [];
  let unread = false;
  for (const item of Array.isArray(list) ? list : []) {
    const id = serviceId(isRecord(item) ? (field(item, "testInvitationId") ?? field(item, "id")) : item);
    if (id === undefined) unread = true;
    else ids.push(id);
  }
  return { ids, unread };
}

/**
 * A bulk write's answer; an empty one (204, or 200 with no body) names no item refused, as `{}` does: API.md 4.3,
 * a 2xx means the ids are queued. (It is not "the answer was lost": one came.)
 */
function bulkAnswer(answer: Answer): unknown {
  return answer.data === undefined && !answer.notJson ? {} : answer.data;
}

/** A bulk request's count of items, within its record's limit (each item was checked where its row was read). */
function checkCount(operation: "bulkInvite" | "upsertEmployees", count: number): void {
  z.number().int().min(1).max(OPERATIONS[operation].limits.items).parse(count);
}
