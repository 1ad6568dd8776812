import { ApiError } from "../errors.js";
import type { ApiClient, ApiName, RequestOptions } from "./client.js";
import { type Json, jsonArray } from "./json.js";
import * as s from "./schemas.js";
import * as z from "./zod.js";

/**
 * Every operation of API.md §4.1 and §4.4, declared once. The method and path here are the only place a
 * route is spelled; the typed functions below name their route by key.
 */
export const ROUTES = {
  // §4.1 assessment operations ({base_url})
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
  // §4.4 employee skills operations ({skills_base_url})
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
type Record_ = Record<string, unknown>;

export interface Page<T> {
  items: T[];
  /** False when this was the last page. */
  more: boolean;
  total?: number;
}

/** Typed functions over the routes: request bodies checked strictly, answers read leniently. */
export class Api {
  constructor(readonly client: ApiClient) {}

  // Tests
  async listTests(pageNo: number, pageSize: number): Promise<Page<s.Test>> {
    const data = await this.call("listTests", {}, { query: { pageNo, pageSize } });
    const items = read(z.array(s.Test), pick(data, ["tests", "items"]), "tests");
    return { items, more: items.length >= pageSize, total: numberField(data, "count") };
  }
  async getTest(testId: number): Promise<Record_> {
    return read(
      z.looseObject({ testId: z.number().optional() }),
      await this.call("getTest", { testId }),
      "test",
    );
  }
  async getSettings(testId: number): Promise<s.TestSettings> {
    const data = await this.call("getSettings", { testId });
    return read(s.TestSettings, data, "test settings") as s.TestSettings;
  }
  async updateSettings(testId: number, body: Record_): Promise<Record_ | undefined> {
    const data = await this.call("updateSettings", { testId }, { body });
    return isRecord(data) ? data : undefined;
  }

  // Invitations
  async invite(testId: number, body: s.InviteBody): Promise<s.Invitation> {
    const data = await this.call("invite", { testId }, { body: s.InviteBody.parse(body) });
    return read(s.Invitation, data, "invitation");
  }
  async inviteThroughLink(testId: number, testLinkId: number, body: s.LinkInviteBody): Promise<s.Invitation> {
    const data = await this.call(
      "inviteThroughLink",
      { testId, testLinkId },
      { body: s.LinkInviteBody.parse(body) },
    );
    return read(s.Invitation, data, "invitation");
  }
  /**
   * §2.7: the settings and up to 1000 candidates (their texts checked and serialized by the bulk run); the
   * answer is a single boolean, and `false` means the service refused the chunk.
   */
  async bulkInvite(
    testId: number,
    settings: s.BulkInviteSettings,
    candidates: readonly Json<s.BulkCandidate>[],
  ): Promise<boolean> {
    s.BulkCandidateTexts.parse(candidates);
    const head = JSON.stringify(s.BulkInviteSettings.parse(settings));
    const json = `${head.slice(0, -1)}${head === "{}" ? "" : ","}"candidates":${jsonArray(candidates)}}`;
    const data = await this.call("bulkInvite", { testId }, { json });
    return data === true || data === "true" || (isRecord(data) && data.result === true) || data === undefined;
  }
  async cancelInvitation(testInvitationId: number): Promise<Record_> {
    return asRecord(await this.call("cancelInvitation", { testInvitationId }, { body: {} }));
  }
  async reattempt(testInvitationId: number, body: s.ReattemptBody): Promise<Record_> {
    return asRecord(
      await this.call("reattempt", { testInvitationId }, { body: s.ReattemptBody.parse(body) }),
    );
  }

  // Reports and attempts
  async getReport(testInvitationId: number, reportType?: 1 | 2 | 3): Promise<s.Report> {
    return read(
      s.Report,
      await this.call("getReport", { testInvitationId }, { query: { reportType } }),
      "report",
    );
  }
  async getReportPdf(testInvitationId: number): Promise<Buffer> {
    const res = await this.client.request({
      ...this.target("getReportPdf", { testInvitationId }),
      binary: true,
    });
    if (!Buffer.isBuffer(res.data)) throw new ApiError(res.status, ["The service did not answer with a PDF"]);
    return res.data;
  }
  /** §4.2.1: at most 30 days per call; callers split longer spans (src/bulk/windows.ts). */
  async listAttempts(
    startDateTime: string,
    endDateTime: string,
    state = "completed",
  ): Promise<s.TestAttempt[]> {
    const data = await this.call(
      "listAttempts",
      {},
      { query: { state }, body: { StartDateTime: startDateTime, EndDateTime: endDateTime }, safe: true },
    );
    return read(z.array(s.TestAttempt), pick(data, ["testAttempts", "items"]) ?? [], "test attempts");
  }
  /**
   * §4.3. A 401 that names ids is a per-id refusal, not a bad key: it comes back as `invalid`, and nothing
   * of that call was queued.
   */
  async processCallbacks(
    ids: number[],
  ): Promise<{ successful: number[]; failed: number[]; invalid: number[] }> {
    try {
      const data = await this.call("processCallbacks", {}, { body: { testinvitationIds: ids } });
      const result = read(s.CallbacksResult, data, "callbacks result");
      const numbers = (list: unknown[] | null | undefined) =>
        (list ?? []).map(Number).filter(Number.isFinite);
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
    const data = await this.call("listLinks", { testId });
    return read(z.array(s.TestLink), pick(data, ["testLinks", "items"]) ?? [], "test links");
  }
  async getLink(testId: number, testLinkId: number): Promise<s.TestLink> {
    return read(
      s.TestLink,
      pick(await this.call("getLink", { testId, testLinkId }), ["testLink"], true),
      "test link",
    );
  }
  async createLink(testId: number, body: s.TestLinkBody): Promise<s.TestLink> {
    const data = await this.call("createLink", { testId }, { body: s.TestLinkBody.parse(body) });
    return read(s.TestLink, pick(data, ["testLink"], true), "test link");
  }
  async updateLink(testId: number, testLinkId: number, body: s.TestLinkBody): Promise<s.TestLink> {
    const data = await this.call("updateLink", { testId, testLinkId }, { body: s.TestLinkBody.parse(body) });
    return read(s.TestLink, pick(data, ["testLink"], true), "test link");
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
    const data = await this.call("maskCandidate", {}, { body: s.GdprBody.parse(body) }, false);
    const result = isRecord(data) ? data.result : data;
    return typeof result === "string" ? result : "Request accepted for processing";
  }

  // Employee skills (§4.4)
  async listEmployees(pageNumber: number, pageSize: number): Promise<Page<Record_>> {
    return skillsPage(
      await this.call("listEmployees", {}, { query: { PageNumber: pageNumber, PageSize: pageSize } }),
    );
  }
  async listSkillsProfiles(pageNumber: number, pageSize: number): Promise<Page<Record_>> {
    return skillsPage(
      await this.call("listSkillsProfiles", {}, { query: { PageNumber: pageNumber, PageSize: pageSize } }),
    );
  }
  async getSkillsProfile(employeeId: number): Promise<Record_> {
    return asRecord(await this.call("getSkillsProfile", { employeeId }));
  }
  /** §2.11: up to 100 employees, their texts checked and serialized by the bulk run (src/bulk/employees.ts). */
  async upsertEmployees(items: readonly Json<s.EmployeeUpsertItem>[]): Promise<s.UpsertResult> {
    s.UpsertItemTexts.parse(items);
    const json = jsonArray(items);
    return read(s.UpsertResult, await this.call("upsertEmployees", {}, { json }), "upsert result");
  }
  async listCertificates(employeeId: number, includeSkills: boolean): Promise<Record_[]> {
    const data = await this.call(
      "listCertificates",
      { employeeId },
      { query: { includeSkills: includeSkills || undefined } },
    );
    return read(
      z.array(z.record(z.string(), z.unknown())),
      pick(data, ["items", "certificates"]) ?? [],
      "certificates",
    );
  }
  async addCertificate(employeeId: number, body: Record_): Promise<Record_> {
    return asRecord(await this.call("addCertificate", { employeeId }, { body }));
  }
  async setEmployeeStatus(employeeId: number, body: Record_): Promise<Record_> {
    return asRecord(await this.call("setEmployeeStatus", { employeeId }, { body }));
  }
  async getEmployeeReport(employeeId: number, testId: number): Promise<s.Report> {
    return read(s.Report, await this.call("getEmployeeReport", { employeeId, testId }), "report");
  }
  async uploadResume(employeeId: number, upload: NonNullable<RequestOptions["raw"]>): Promise<Record_> {
    const res = await this.client.request({
      ...this.target("uploadResume", { EmployeeId: employeeId }),
      raw: upload,
    });
    return asRecord(unwrap(res.data));
  }
  async assignLearning(employeeId: number, body: Record_): Promise<Record_> {
    return asRecord(await this.call("assignLearning", { employeeId }, { body }));
  }
  async getSkillGap(employeeId: number): Promise<Record_> {
    return asRecord(await this.call("getSkillGap", { employeeId }));
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

  private async call(
    operation: Operation,
    params: Params = {},
    extra: Pick<RequestOptions, "query" | "body" | "json" | "safe"> = {},
    unwrapEnvelope = true,
  ): Promise<unknown> {
    const res = await this.client.request({ ...this.target(operation, params), ...extra });
    return unwrapEnvelope ? unwrap(res.data) : res.data;
  }
}

/**
 * Some answers come in a `{"result": ..., "errors": null}` envelope (§2.8, §4.3), others bare; a tolerant
 * client accepts either for every operation.
 */
export function unwrap(data: unknown): unknown {
  if (isRecord(data) && "result" in data && data.result !== null && typeof data.result === "object") {
    const others = Object.keys(data).filter(
      (key) => !["result", "errors", "statusCode", "message", "success"].includes(key),
    );
    if (others.length === 0) return data.result;
  }
  return data;
}

/** The list inside an answer: under one of `keys`, or the answer itself when it is already an array. */
function pick(data: unknown, keys: string[], orSelf = false): unknown {
  if (Array.isArray(data)) return data;
  if (isRecord(data)) {
    for (const key of keys) if (key in data && (orSelf ? isRecord(data[key]) : true)) return data[key];
  }
  return orSelf ? data : undefined;
}

function skillsPage(data: unknown): Page<Record_> {
  const page = read(s.SkillsPage, Array.isArray(data) ? { items: data, hasNextPage: false } : data, "page");
  return { items: page.items, more: page.hasNextPage === true, total: page.totalCount ?? undefined };
}

function read<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  throw new ApiError(
    200,
    [`Unexpected ${what} in the service's answer${where}: ${issue?.message ?? "invalid"}`],
    {
      body: data,
      suggestion: "Run with --debug to see the exchange; `assess api` shows the raw answer.",
    },
  );
}

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asRecord(data: unknown): Record_ {
  return isRecord(data) ? data : { result: data };
}

function numberField(data: unknown, key: string): number | undefined {
  return isRecord(data) && typeof data[key] === "number" ? data[key] : undefined;
}

/** Pages until a short or empty page; stop early by breaking out of the loop. */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  firstPage = 1,
): AsyncGenerator<T[]> {
  for (let page = firstPage; ; page++) {
    const result = await fetchPage(page);
    if (result.items.length > 0) yield result.items;
    if (!result.more || result.items.length === 0) return;
  }
}
