import { ApiError, UncertainError } from "../errors.js";
import { field, isRecord } from "../fields.js";
import * as z from "../parse/zod.js";
import { showAs } from "../redact.js";
import type { ApiClient, ApiName, ApiResponse, Download, RequestOptions } from "./client.js";
import { type JsonBytes, jsonArray } from "./json.js";
import {
  type Answer,
  describeText,
  isHtml,
  notJsonError,
  type Page,
  read,
  readList,
  readPage,
  unwrap,
} from "./read.js";
import * as s from "./schemas.js";

export type { Page } from "./read.js";

/**
 * Every operation of the service (assessment and employee skills), declared once. The method and path here
 * are the only place a route is spelled; the typed functions below name their route by key.
 */
export const ROUTES = {
  // Assessment operations ({base_url}, paths under /v3)
  listTests: "GET /v3/tests",
  getTest: "GET /v3/tests/{testId}",
  invite: "POST /v3/tests/{testId}/invite",
  getReport: "GET /v3/reports/{testInvitationId}",
  getReportPdf: "GET /v3/reports/{testInvitationId}/pdf",
  cancelInvitation: "POST /v3/invitations/{testInvitationId}/cancel",
  reattempt: "POST /v3/invitations/{testInvitationId}/reattempt",
  inviteThroughLink: "POST /v3/tests/{testId}/testlinks/{testLinkId}/invite",
  getSettings: "GET /v3/tests/{testId}/settings",
  updateSettings: "POST /v3/tests/{testId}/settings",
  listAttempts: "POST /v3/candidates/testattempts",
  processCallbacks: "POST /v3/callbacks/process",
  bulkInvite: "POST /v3/tests/{testId}/invite/bulk",
  listLinks: "GET /v3/tests/{testId}/testlinks",
  createLink: "POST /v3/tests/{testId}/testlinks",
  getLink: "GET /v3/tests/{testId}/testlinks/{testLinkId}",
  updateLink: "POST /v3/tests/{testId}/testlinks/{testLinkId}",
  createUser: "POST /v3/accounts/user/create",
  updateUser: "POST /v3/accounts/user/update",
  setUserStatus: "POST /v3/accounts/user/status",
  maskCandidate: "POST /v3/gdpr/requests",
  // Employee skills operations ({skills_base_url}, no version segment)
  listEmployees: "GET /employees",
  getSkillsProfile: "GET /employees/{employeeId}/skills-profile",
  upsertEmployees: "POST /employees/upsert",
  listCertificates: "GET /employees/{employeeId}/certificates",
  setEmployeeStatus: "PATCH /employees/{employeeId}/status",
  getEmployeeReport: "GET /employees/{employeeId}/reports/{testId}",
  addCertificate: "POST /employees/{employeeId}/certificates",
  uploadResume: "POST /employees/{EmployeeId}/resume/upload",
  listSkillsProfiles: "GET /employees/skills-profile",
  assignLearning: "POST /employees/{employeeId}/learning/assign",
  getSkillGap: "GET /employees/{employeeId}/skill-gap",
} as const;
export type Operation = keyof typeof ROUTES;

const SKILLS_OPERATIONS = new Set<Operation>([
  "listEmployees",
  "getSkillsProfile",
  "upsertEmployees",
  "listCertificates",
  "setEmployeeStatus",
  "getEmployeeReport",
  "addCertificate",
  "uploadResume",
  "listSkillsProfiles",
  "assignLearning",
  "getSkillGap",
]);

type Params = Record<string, string | number>;
type Fields = Record<string, unknown>;
const AnyRecord = z.record(z.string(), z.unknown());

/** Typed functions over the routes: request bodies checked strictly, answers read leniently (read.ts). */
export class Api {
  constructor(readonly client: ApiClient) {
    showAs(this, () => ({ client: this.client }));
  }

  // Tests
  async listTests(pageNo: number, pageSize: number): Promise<Page<s.Test>> {
    const answer = await this.call("listTests", {}, { query: { pageNo, pageSize } });
    return readPage(s.Test, answer, ["tests"], "tests", pageNo, pageSize);
  }
  async getTest(testId: number): Promise<Fields> {
    return read(AnyRecord, await this.call("getTest", { testId }), "test");
  }
  async getSettings(testId: number): Promise<s.TestSettings> {
    return read(
      s.TestSettings,
      await this.call("getSettings", { testId }),
      "test settings",
    ) as s.TestSettings;
  }
  async updateSettings(testId: number, body: Fields): Promise<Fields | undefined> {
    const { data } = await this.call("updateSettings", { testId }, { body });
    return isRecord(data) ? data : undefined;
  }

  // Invitations
  async invite(testId: number, body: s.InviteBody): Promise<s.Invitation> {
    const answer = await this.call("invite", { testId }, { body: s.InviteBody.parse(body) });
    return read(s.Invitation, answer, "invitation");
  }
  async inviteThroughLink(testId: number, testLinkId: number, body: s.LinkInviteBody): Promise<s.Invitation> {
    const answer = await this.call(
      "inviteThroughLink",
      { testId, testLinkId },
      { body: s.LinkInviteBody.parse(body) },
    );
    return read(s.Invitation, answer, "invitation");
  }
  /**
   * The settings and up to 1000 candidates (their JSON checked and serialized by the bulk run). The
   * answer is a single boolean: only an explicit `false` means the service refused the chunk; any other 2xx
   * answer (`true`, an empty body, an object) is success.
   */
  async bulkInvite(
    testId: number,
    settings: s.BulkInviteSettings,
    candidates: readonly JsonBytes<s.BulkCandidate>[],
  ): Promise<boolean> {
    s.BulkCandidateCount.parse(candidates.length);
    const head = JSON.stringify(s.BulkInviteSettings.parse(settings));
    const json = jsonArray(candidates, `${head.slice(0, -1)}${head === "{}" ? "" : ","}"candidates":[`, "]}");
    const { data } = await this.call("bulkInvite", { testId }, { json });
    const verdict = isRecord(data) ? (field(data, "result") ?? field(data, "success")) : data;
    return !(verdict === false || (typeof verdict === "string" && verdict.trim().toLowerCase() === "false"));
  }
  async cancelInvitation(testInvitationId: number): Promise<Fields> {
    return asRecord((await this.call("cancelInvitation", { testInvitationId }, { body: {} })).data);
  }
  async reattempt(testInvitationId: number, body: s.ReattemptBody): Promise<Fields> {
    const answer = await this.call("reattempt", { testInvitationId }, { body: s.ReattemptBody.parse(body) });
    return asRecord(answer.data);
  }

  // Reports and attempts
  async getReport(testInvitationId: number, reportType?: 1 | 2 | 3): Promise<s.Report> {
    const answer = await this.call("getReport", { testInvitationId }, { query: { reportType } });
    return read(s.Report, answer, "report");
  }
  /** The report's PDF, streamed into `download` as it arrives (never held whole); returns its size in bytes. */
  async getReportPdf(testInvitationId: number, download: Download): Promise<number> {
    const res = await this.client.request({
      ...this.target("getReportPdf", { testInvitationId }),
      download,
    });
    if (typeof res.data !== "number")
      throw new ApiError(res.status, ["The service did not answer with a PDF"]);
    return res.data;
  }
  /** The service lists at most 30 days per call; callers split longer spans (src/bulk/engine/windows.ts). */
  async listAttempts(
    startDateTime: string,
    endDateTime: string,
    state = "completed",
  ): Promise<s.TestAttempt[]> {
    const answer = await this.call(
      "listAttempts",
      {},
      { query: { state }, body: { StartDateTime: startDateTime, EndDateTime: endDateTime }, safe: true },
    );
    return readList(s.TestAttempt, answer, ["testAttempts"], "test attempts");
  }
  /**
   * At most 100 ids per call. A 401 that names ids is a per-id refusal, not a bad key: it comes back as
   * `invalid`, and nothing of that call was queued.
   */
  async processCallbacks(
    ids: number[],
  ): Promise<{ successful: number[]; failed: number[]; invalid: number[] }> {
    try {
      const answer = await this.call("processCallbacks", {}, { body: { testinvitationIds: ids } });
      const result = read(s.CallbacksResult, answer, "callbacks result");
      const numbers = (list: unknown[] | null | undefined) =>
        (Array.isArray(list) ? list : []).map(Number).filter(Number.isFinite);
      return {
        successful: numbers(result.testinvitationIds?.successful),
        failed: numbers(result.testinvitationIds?.failed),
        invalid: [],
      };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && error.ids.length > 0) {
        return { successful: [], failed: [], invalid: error.ids };
      }
      throw error;
    }
  }

  // Test links
  async listLinks(testId: number): Promise<s.TestLink[]> {
    return readList(s.TestLink, await this.call("listLinks", { testId }), ["testLinks"], "test links");
  }
  async getLink(testId: number, testLinkId: number): Promise<s.TestLink> {
    return this.readLink(await this.call("getLink", { testId, testLinkId }));
  }
  async createLink(testId: number, body: s.TestLinkBody): Promise<s.TestLink> {
    return this.readLink(await this.call("createLink", { testId }, { body: s.TestLinkBody.parse(body) }));
  }
  async updateLink(testId: number, testLinkId: number, body: s.TestLinkBody): Promise<s.TestLink> {
    const answer = await this.call(
      "updateLink",
      { testId, testLinkId },
      { body: s.TestLinkBody.parse(body) },
    );
    return this.readLink(answer);
  }

  // Users and GDPR
  async createUser(body: z.input<typeof s.UserCreateBody>): Promise<s.User> {
    return read(s.User, await this.call("createUser", {}, { body: s.UserCreateBody.parse(body) }), "user");
  }
  async updateUser(body: z.input<typeof s.UserUpdateBody>): Promise<s.User> {
    return read(s.User, await this.call("updateUser", {}, { body: s.UserUpdateBody.parse(body) }), "user");
  }
  async setUserStatus(body: z.input<typeof s.UserStatusBody>): Promise<s.User> {
    return read(s.User, await this.call("setUserStatus", {}, { body: s.UserStatusBody.parse(body) }), "user");
  }
  async maskCandidate(body: z.input<typeof s.GdprBody>): Promise<string> {
    const { data } = await this.call("maskCandidate", {}, { body: s.GdprBody.parse(body) }, false);
    const result = isRecord(data) ? (field(data, "result") ?? field(data, "message")) : data;
    return typeof result === "string" && result.trim() ? result : "Request accepted for processing";
  }

  // Employee skills
  async listEmployees(pageNumber: number, pageSize: number): Promise<Page<Fields>> {
    const answer = await this.call(
      "listEmployees",
      {},
      { query: { PageNumber: pageNumber, PageSize: pageSize } },
    );
    return readPage(AnyRecord, answer, ["employees"], "employees", pageNumber, pageSize);
  }
  async listSkillsProfiles(pageNumber: number, pageSize: number): Promise<Page<Fields>> {
    const answer = await this.call(
      "listSkillsProfiles",
      {},
      { query: { PageNumber: pageNumber, PageSize: pageSize } },
    );
    return readPage(
      AnyRecord,
      answer,
      ["employees", "skillsProfiles"],
      "skills profiles",
      pageNumber,
      pageSize,
    );
  }
  async getSkillsProfile(employeeId: number): Promise<Fields> {
    return readRecord(await this.call("getSkillsProfile", { employeeId }), "skills profile");
  }
  /** Up to 100 employees, their JSON checked and serialized by the bulk run (src/bulk/rows/employees.ts). */
  async upsertEmployees(items: readonly JsonBytes<s.EmployeeUpsertItem>[]): Promise<s.UpsertResult> {
    s.UpsertItemCount.parse(items.length);
    const answer = await this.call("upsertEmployees", {}, { json: jsonArray(items) });
    return read(s.UpsertResult, answer, "upsert result");
  }
  async listCertificates(employeeId: number, includeSkills: boolean): Promise<Fields[]> {
    const answer = await this.call(
      "listCertificates",
      { employeeId },
      { query: { includeSkills: includeSkills || undefined } },
    );
    return readList(AnyRecord, answer, ["certificates"], "certificates");
  }
  async addCertificate(employeeId: number, body: Fields): Promise<Fields> {
    return asRecord((await this.call("addCertificate", { employeeId }, { body })).data);
  }
  async setEmployeeStatus(employeeId: number, body: Fields): Promise<Fields> {
    return asRecord((await this.call("setEmployeeStatus", { employeeId }, { body })).data);
  }
  async getEmployeeReport(employeeId: number, testId: number): Promise<s.Report> {
    return read(s.Report, await this.call("getEmployeeReport", { employeeId, testId }), "report");
  }
  async uploadResume(employeeId: number, upload: NonNullable<RequestOptions["raw"]>): Promise<Fields> {
    const target = this.target("uploadResume", { EmployeeId: employeeId });
    const res = await this.client.request({ ...target, raw: upload });
    return asRecord(this.answer(target, res).data);
  }
  async assignLearning(employeeId: number, body: Fields): Promise<Fields> {
    return asRecord((await this.call("assignLearning", { employeeId }, { body })).data);
  }
  async getSkillGap(employeeId: number): Promise<Fields> {
    return readRecord(await this.call("getSkillGap", { employeeId }), "skill gap");
  }

  /** Method, api and substituted path of an operation. */
  target(operation: Operation, params: Params = {}): Pick<RequestOptions, "method" | "path" | "api"> {
    const [method, template] = ROUTES[operation].split(" ") as [RequestOptions["method"], string];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`missing path parameter ${name} for ${operation}`);
      return encodeURIComponent(String(value));
    });
    const api: ApiName = SKILLS_OPERATIONS.has(operation) ? "skills" : "assess";
    return { method, path, api };
  }

  /** A test link's answer: the link itself, or the link under `testLink` (or an envelope). */
  private readLink(answer: Answer): s.TestLink {
    const inner = field(answer.data, "testLink");
    return read(s.TestLink, answer, "test link", isRecord(inner) ? inner : answer.data);
  }

  private async call(
    operation: Operation,
    params: Params = {},
    extra: Pick<RequestOptions, "query" | "body" | "json" | "safe"> = {},
    unwrapEnvelope = true,
  ): Promise<Answer> {
    const target = this.target(operation, params);
    const res = await this.client.request({ ...target, ...extra });
    return this.answer({ ...target, safe: extra.safe }, res, extra.query, unwrapEnvelope);
  }

  /**
   * An answer, with where it came from. Text that is not JSON is flagged for the readers (read.ts), which
   * refuse it; an HTML page is refused here after a write, whatever the operation (a proxy's login or error
   * page that says 200, even to operations whose answer may be plain text, as `maskCandidate`'s message):
   * then the request may or may not have been processed.
   */
  private answer(
    target: Pick<RequestOptions, "method" | "path" | "api" | "safe">,
    res: ApiResponse,
    queryParams: RequestOptions["query"] = {},
    unwrapEnvelope = true,
  ): Answer {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(queryParams)) {
      if (value !== undefined) query.set(key, String(value));
    }
    const answer: Answer = {
      data: unwrapEnvelope ? unwrap(res.data) : res.data,
      method: target.method,
      path: query.size > 0 ? `${target.path}?${query}` : target.path,
      skills: target.api === "skills",
    };
    if (res.notJson) answer.notJson = true;
    if (res.notJson && !(target.method === "GET" || target.safe) && isHtml(String(res.data))) {
      throw new UncertainError(
        target.method,
        this.client.url(target.api ?? "assess", answer.path),
        `the service answered HTTP ${res.status} with ${describeText(res.data)}`,
      );
    }
    return answer;
  }
}

function asRecord(data: unknown): Fields {
  return isRecord(data) ? data : { result: data };
}

/** A read's answer as a record, whatever its shape; but an HTML page (a login page that says 200) is no answer. */
function readRecord(answer: Answer, what: string): Fields {
  if (answer.notJson && isHtml(String(answer.data))) throw notJsonError(answer, what);
  return asRecord(answer.data);
}

/**
 * Pages until the last one (read.ts decides from what the answer carries); stop early by breaking out of the
 * loop. A page that repeats the one before (a service that ignores the page number) ends it with a warning
 * instead of looping forever.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  firstPage = 1,
  warn?: (message: string) => void,
): AsyncGenerator<T[]> {
  let previous: string | undefined;
  for (let page = firstPage; ; page++) {
    const result = await fetchPage(page);
    const fingerprint = result.items.length > 0 ? JSON.stringify(result.items) : undefined;
    if (fingerprint !== undefined && fingerprint === previous) {
      warn?.(
        `Page ${page} repeats page ${page - 1}; the service seems to ignore the page number, so paging stops here.`,
      );
      return;
    }
    previous = fingerprint;
    if (result.items.length > 0) yield result.items;
    if (!result.more || result.items.length === 0) return;
  }
}
