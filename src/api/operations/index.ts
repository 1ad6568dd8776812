/**
 * Every operation of both services, one record each (what a record holds is written first): the only place its
 * method and path are spelled. The API layer (api/endpoints.ts) sends and reads it by its record, the SDK's
 * client (sdk/client.ts) puts it at `client.<resource>.<verb>`, `assess openapi` documents it and `assess mcp`
 * offers it as a tool. Adding one: its record, its sandbox route, its verb under src/commands/; its member in
 * the SDK's AssessClient (sdk/types.ts: `verb: FromRecord`, its place in the order the declarations show; the
 * build writes its method from this record and refuses a record with none), and a write is an MCP tool once
 * mcp/operations.ts names its group. The SDK's declarations show a read's return type as it is written here.
 */
import { type Fields, field, isRecord } from "../../fields.js";
import type * as z from "../../parse/zod.js";
import { EMPLOYEE_STATUSES } from "../../spec/employee-statuses.js";
import { MAX_BULK_CANDIDATES, MAX_CALLBACK_IDS, MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import { type Answer, isHtml, notJsonError, read, readList } from "../read.js";
import * as s from "../schemas.js";

type Json = Record<string, unknown>;

/** A body or an answer as the OpenAPI document shows it: a named schema, or another content. */
export type Content = string | { contentType: string; schema: Json; description?: string };

export interface QueryParameter {
  name: string;
  schema: Json;
  required?: boolean;
  description: string;
}

export interface OperationRecord {
  method: "GET" | "POST" | "PATCH";
  /** `{name}` is an integer path parameter; paths under /v3 are the assessment API's, others the skills API's. */
  path: string;
  /** Where the SDK's client has it: `client.<resource>.<verb>`, unique together. */
  resource: string;
  verb: string;
  /** The OpenAPI summary and tag, and what it does in words a person or a model can act on. */
  summary: string;
  tag: string;
  description: string;
  /** `add` only adds; `overwrite` may change or remove what exists. */
  effect: "read" | "add" | "overwrite";
  /**
   * A write whose answer `read` may not make sense of: where to check that it was done (`{name}`: the path's
   * parameter), said when its answer cannot be read (the write is still a success: api/endpoints.ts).
   */
  check?: string;
  query?: readonly QueryParameter[];
  pagination?: {
    page: string;
    size: string;
    items: z.ZodType;
    /** The keys the list may be under (read.ts looks for others too). */
    keys: readonly string[];
    what: string;
  };
  /** The most items one request may carry. */
  limits?: { items: number };
  /** A strict schema (refused before sending), any record (`fields`), or always `{}` (`empty`). */
  body?: z.ZodType | "fields" | "empty";
  /** How the answer becomes the value returned (leniently: read.ts); `raw`: its envelope left closed. */
  read?: (answer: Answer) => unknown;
  raw?: true;
  /**
   * For the OpenAPI document: body (a strict body is documented as its own schema) and answer; 201 too; the
   * answer also text/plain; a 401 of ids.
   */
  request?: Content;
  response?: Content;
  created?: true;
  alsoText?: true;
  resultErrors?: true;
}

type Method = OperationRecord["method"];
type Rest = Omit<OperationRecord, "method" | "path" | "resource" | "verb" | "tag"> & { tag?: string };
/** `"tests.settings.get"` as `["tests.settings", "get"]`: the resource, and the verb after the last dot. */
type Split<Place extends string> = Place extends `${infer Head}.${infer Tail}`
  ? Tail extends `${string}.${string}`
    ? [`${Head}.${Split<Tail>[0]}`, Split<Tail>[1]]
    : [Head, Tail]
  : never;

/**
 * A record from its route (`"GET /v3/tests"`), its place on the SDK's client (`"tests.settings.get"`) and the
 * rest; its tag is its resource's first name unless given. The place stays literal in the record's type: the
 * SDK's client is typed from it (sdk/client.ts).
 */
function op<
  const M extends Method,
  const P extends string,
  const Place extends `${string}.${string}`,
  const F extends Rest,
>(route: `${M} ${P}`, place: Place, fields: F) {
  const [method, path] = route.split(" ") as [M, P];
  const resource = place.slice(0, place.lastIndexOf(".")) as Split<Place>[0];
  const verb = place.slice(resource.length + 1) as Split<Place>[1];
  return { method, path, resource, verb, tag: resource.split(".")[0]!, ...fields };
}

/** The names of a path's parameters (`{testId}`), in order. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
}

function query(name: string, schema: Json, description: string, required?: true): QueryParameter {
  return { name, schema, required, description };
}

/** A paged list: its page parameters, as documented query parameters, and where its items are. */
function paged<I extends z.ZodType>(page: string, size: string, items: I, keys: string[], what: string) {
  return {
    query: [
      pageParameter(page, "page number, from 1"),
      pageParameter(size, "items per page (the service allows 1 to 100)"),
    ],
    pagination: { page, size, items, keys, what },
  };
}

/** One object per name: the YAML document writes a schema that operations share once, with an anchor. */
const pageParameters = new Map<string, QueryParameter>();
function pageParameter(name: string, description: string): QueryParameter {
  const param = pageParameters.get(name) ?? query(name, { type: "integer", minimum: 1 }, description);
  pageParameters.set(name, param);
  return param;
}

/** An answer as a record: an empty one (204 No Content) is no field at all. */
function asRecord(data: unknown): Fields {
  if (data === undefined) return {};
  return isRecord(data) ? data : { result: data };
}

/** A read's answer as a record, whatever its shape; but an HTML page (a login page that says 200) is no answer. */
function readRecord(answer: Answer, what: string): Fields {
  if (answer.notJson && isHtml(String(answer.data))) throw notJsonError(answer, what);
  return asRecord(answer.data);
}

/** A test link's answer: the link itself, or the link under `testLink` (or an envelope). */
function readLink(answer: Answer): s.TestLink {
  const inner = field(answer.data, "testLink");
  return read(s.TestLink, answer, "test link", isRecord(inner) ? inner : answer.data);
}

/** A user's answer (create, update, status): one with none of a user's fields (`{}`) says nothing of the user. */
const UserAnswer = s.User.refine(
  (user) => Object.values(user).some((value) => value != null),
  "none of a user's fields",
);
const readUser = (answer: Answer): s.User => read(UserAnswer, answer, "user");
const INVITATION_CHECK = "the invitations of test {testId} in the service's web application";
const USER_CHECK = "the account's users in the service's web application";

export const OPERATIONS = {
  // The assessment API's ({base_url}, paths under /v3).
  listTests: op("GET /v3/tests", "tests.list", {
    summary: "List tests",
    description:
      "One page of the account's tests: testId, testName, status, duration; where a test's id is found by its name.",
    effect: "read",
    ...paged("pageNo", "pageSize", s.Test, ["tests"], "tests"),
    response: "TestList",
  }),
  getTest: op("GET /v3/tests/{testId}", "tests.get", {
    summary: "Get a test",
    description: "One test, with every field the service keeps of it (details, sections).",
    effect: "read",
    read: (answer: Answer): s.TestDetail => read(s.TestDetail, answer, "test"),
    response: "TestDetail",
  }),
  invite: op("POST /v3/tests/{testId}/invite", "invitations.create", {
    summary: "Invite a candidate",
    description:
      'Invites one candidate (emailId, fullName) to a test; the answer holds the invitation\'s testInvitationId and test URL. Dates are UTC YYYY-MM-DDTHH:mm:ssZ; sendEmail "yes" e-mails the candidate.',
    effect: "add",
    check: INVITATION_CHECK,
    body: s.InviteBody,
    read: (answer: Answer): s.Invitation => read(s.Invitation, answer, "invitation"),
    response: "Invitation",
    created: true,
  }),
  getReport: op("GET /v3/reports/{testInvitationId}", "reports.get", {
    summary: "Get a candidate's report",
    description:
      "The report of one attempt: candidate, test, status, scorePercentage, points, time taken, sections with their scores.",
    effect: "read",
    query: [
      query(
        "reportType",
        { type: "integer", enum: [1, 2, 3] },
        "what the report breaks the score down by: 1 sections, 2 skills, 3 both",
      ),
    ],
    read: (answer: Answer): s.Report => read(s.Report, answer, "report"),
    response: "Report",
  }),
  getReportPdf: op("GET /v3/reports/{testInvitationId}/pdf", "reports.pdf", {
    summary: "Get a candidate's report as PDF",
    description: "The report of one attempt as a PDF file.",
    effect: "read",
    response: {
      contentType: "application/pdf",
      schema: { type: "string", contentMediaType: "application/pdf" },
    },
  }),
  cancelInvitation: op("POST /v3/invitations/{testInvitationId}/cancel", "invitations.cancel", {
    summary: "Cancel an invitation",
    description: "Cancels an invitation: its candidate can no longer take the test.",
    effect: "overwrite",
    body: "empty",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: { contentType: "application/json", schema: { type: "object" }, description: "an empty object" },
    response: "Record",
  }),
  reattempt: op("POST /v3/invitations/{testInvitationId}/reattempt", "invitations.reattempt", {
    summary: "Let a candidate reattempt",
    description:
      "Lets the candidate of an invitation take the test again, in a new window (dates UTC YYYY-MM-DDTHH:mm:ssZ).",
    effect: "overwrite",
    body: s.ReattemptBody,
    read: (answer: Answer): Fields => asRecord(answer.data),
    response: "Record",
  }),
  inviteThroughLink: op("POST /v3/tests/{testId}/testlinks/{testLinkId}/invite", "testLinks.invite", {
    summary: "Invite a candidate through a test link",
    tag: "invitations",
    description: "Invites one candidate through a test link, with the link's settings.",
    effect: "add",
    check: INVITATION_CHECK,
    body: s.LinkInviteBody,
    read: (answer: Answer): s.Invitation => read(s.Invitation, answer, "invitation"),
    response: "Invitation",
    created: true,
  }),
  getSettings: op("GET /v3/tests/{testId}/settings", "tests.settings.get", {
    summary: "Get a test's settings",
    description:
      "A test's settings: name, alias, type (1 multiple questions, 2 single question) and its 0/1 switches (1 yes, 0 no) such as randomQuestions, copyPaste, candidateFeedback.",
    effect: "read",
    read: (answer: Answer): s.TestSettings => read(s.TestSettings, answer, "test settings"),
    response: "TestSettings",
  }),
  updateSettings: op("POST /v3/tests/{testId}/settings", "tests.settings.update", {
    summary: "Change a test's settings",
    description: "Changes the settings of a test (the 0/1 switches given, by name).",
    effect: "overwrite",
    body: "fields",
    read: (answer: Answer): Fields | undefined => (isRecord(answer.data) ? answer.data : undefined),
    request: "TestSettings",
    response: "Record",
    created: true,
  }),
  listAttempts: op("POST /v3/candidates/testattempts", "attempts.list", {
    summary: "List finished attempts of a period (at most 30 days)",
    description: "The attempts finished in a period of at most 30 days (the SDK splits longer ones).",
    effect: "read",
    query: [
      query(
        "state",
        { type: "string", default: "completed" },
        "attempts that are Completed, Testleft or Terminated: `completed`",
        true,
      ),
    ],
    read: (answer: Answer): s.TestAttempt[] =>
      readList(s.TestAttempt, answer, ["testAttempts"], "test attempts"),
    request: "AttemptsBody",
    response: "TestAttemptList",
    resultErrors: true,
  }),
  processCallbacks: op("POST /v3/callbacks/process", "callbacks.process", {
    summary: "Resend test-completion notifications (at most 100 ids)",
    description: "Asks the service to send again the completion callbacks of up to 100 invitations.",
    effect: "add",
    limits: { items: MAX_CALLBACK_IDS },
    request: "CallbacksBody",
    response: "CallbacksAnswer",
    resultErrors: true,
  }),
  bulkInvite: op("POST /v3/tests/{testId}/invite/bulk", "invitations.bulk", {
    summary: "Invite up to 1000 candidates",
    description: "Invites up to 1000 candidates to a test in one request, with the same settings.",
    effect: "add",
    limits: { items: MAX_BULK_CANDIDATES },
    request: "BulkInviteBody",
    response: { contentType: "text/plain", schema: { type: "boolean" } },
  }),
  listLinks: op("GET /v3/tests/{testId}/testlinks", "testLinks.list", {
    summary: "List a test's links",
    tag: "links",
    description:
      "The test links of a test (named entry points): id, name, invitation type (email or open), proctoring mode, schedule, status (active or inactive), URL.",
    effect: "read",
    read: (answer: Answer): s.TestLink[] => readList(s.TestLink, answer, ["testLinks"], "test links"),
    response: "TestLinkList",
  }),
  createLink: op("POST /v3/tests/{testId}/testlinks", "testLinks.create", {
    summary: "Create a test link",
    tag: "links",
    description:
      "Creates a test link (a named entry point) of a test: testLinkName, invitationType (email or open), proctoringSettings, invitationSchedule (validityindays with invitationValidityInDays and timeZoneId; timebound or slotwise with startDateTime, endDateTime and timeZoneId), testLinkStatus.",
    effect: "add",
    check: "the links of the test (`assess links list --test {testId}`)",
    body: s.TestLinkBody,
    read: readLink,
    response: "TestLink",
  }),
  getLink: op("GET /v3/tests/{testId}/testlinks/{testLinkId}", "testLinks.get", {
    summary: "Get a test link",
    tag: "links",
    description: "One test link of a test, with its schedule and proctoring settings.",
    effect: "read",
    read: readLink,
    response: "TestLink",
  }),
  updateLink: op("POST /v3/tests/{testId}/testlinks/{testLinkId}", "testLinks.update", {
    summary: "Change a test link",
    tag: "links",
    description:
      "Changes the fields given of a test link (name, status, schedule, proctoring); the others are kept.",
    effect: "overwrite",
    check: "the link (`assess links get {testLinkId} --test {testId}`)",
    body: s.TestLinkBody,
    read: readLink,
    response: "TestLink",
  }),
  createUser: op("POST /v3/accounts/user/create", "users.create", {
    summary: "Create a user",
    description:
      "Creates a user of the account (an administrator of tests: role Reviewer, in the default business unit unless businessunitId); the user gets an e-mail to set a password.",
    effect: "add",
    check: USER_CHECK,
    body: s.UserCreateBody,
    read: readUser,
    response: "User",
  }),
  updateUser: op("POST /v3/accounts/user/update", "users.update", {
    summary: "Move a user to a business unit",
    description: "Moves the user with this Email to another business unit (BusinessunitId).",
    effect: "overwrite",
    check: USER_CHECK,
    body: s.UserUpdateBody,
    read: readUser,
    response: "User",
  }),
  setUserStatus: op("POST /v3/accounts/user/status", "users.setStatus", {
    summary: "Activate or deactivate a user",
    description: "Activates or deactivates a user: an inactive user cannot sign in.",
    effect: "overwrite",
    check: USER_CHECK,
    body: s.UserStatusBody,
    read: readUser,
    response: "User",
  }),
  maskCandidate: op("POST /v3/gdpr/requests", "gdpr.mask", {
    summary: "Mask a candidate's data (GDPR)",
    description:
      "Masks for good the personal data of the candidate with this CandidateEmail (GDPR): every record of the account, or only the attempt testinvitationId when given. It cannot be undone; the answer is the service's message.",
    effect: "overwrite",
    body: s.GdprBody,
    raw: true,
    read: ({ data }: Answer): string => {
      const result = isRecord(data) ? (field(data, "result") ?? field(data, "message")) : data;
      return typeof result === "string" && result.trim() ? result : "Request accepted for processing";
    },
    response: "GdprAnswer",
  }),

  // The employee-skills API's ({skills_base_url}, no version segment).
  listEmployees: op("GET /employees", "employees.list", {
    summary: "List employees",
    description: "One page of the account's employees, with their profile, organisation and job details.",
    effect: "read",
    ...paged("PageNumber", "PageSize", s.AnyRecord, ["employees"], "employees"),
    response: "SkillsPage",
  }),
  getSkillsProfile: op("GET /employees/{employeeId}/skills-profile", "employees.skillsProfile", {
    summary: "Get an employee's skills profile",
    description: "An employee's complete skills profile: each skill and its level.",
    effect: "read",
    read: (answer: Answer): Fields => readRecord(answer, "skills profile"),
    response: "Record",
  }),
  upsertEmployees: op("POST /employees/upsert", "employees.upsert", {
    summary: "Create or update up to 100 employees",
    description: "Creates or updates up to 100 employees by e-mail in one request.",
    effect: "overwrite",
    limits: { items: MAX_UPSERT_EMPLOYEES },
    request: "UpsertBody",
    response: "UpsertResult",
    alsoText: true,
  }),
  listCertificates: op("GET /employees/{employeeId}/certificates", "employees.certificates.list", {
    summary: "List an employee's certificates",
    description: "The certificates stored of an employee, with their skills if asked.",
    effect: "read",
    query: [query("includeSkills", { type: "boolean" }, "include the skills related to each certificate")],
    read: (answer: Answer): Fields[] => readList(s.AnyRecord, answer, ["certificates"], "certificates"),
    response: "CertificateList",
  }),
  setEmployeeStatus: op("PATCH /employees/{employeeId}/status", "employees.setStatus", {
    summary: "Change an employee's status",
    description: `Changes an employee's status to one of ${EMPLOYEE_STATUSES.join(", ")}.`,
    effect: "overwrite",
    body: "fields",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: "EmployeeStatusBody",
    response: "Record",
  }),
  getEmployeeReport: op("GET /employees/{employeeId}/reports/{testId}", "employees.report", {
    summary: "Get an employee's latest completed report of a test",
    description: "An employee's latest completed report of a test.",
    effect: "read",
    read: (answer: Answer): s.Report => read(s.Report, answer, "report"),
    response: "Report",
  }),
  addCertificate: op("POST /employees/{employeeId}/certificates", "employees.certificates.add", {
    summary: "Store a certificate of an employee",
    description: "Stores a certificate of an employee (title, issuer, date).",
    effect: "add",
    body: "fields",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: "Certificate",
    response: "Record",
  }),
  uploadResume: op("POST /employees/{EmployeeId}/resume/upload", "employees.uploadResume", {
    summary: "Upload an employee's resume (PDF, DOC or DOCX)",
    description: "Uploads an employee's résumé (PDF, DOC or DOCX) as a multipart form.",
    effect: "overwrite",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: {
      contentType: "multipart/form-data",
      schema: {
        type: "object",
        properties: { file: { type: "string", contentMediaType: "application/octet-stream" } },
        required: ["file"],
      },
      description: "the resume, as the form field `file`",
    },
    response: "Record",
  }),
  listSkillsProfiles: op("GET /employees/skills-profile", "employees.skillsProfiles.list", {
    summary: "List employees with their skills profiles",
    description: "One page of employees with their skills profiles.",
    effect: "read",
    ...paged("PageNumber", "PageSize", s.AnyRecord, ["employees", "skillsProfiles"], "skills profiles"),
    response: "SkillsPage",
  }),
  assignLearning: op("POST /employees/{employeeId}/learning/assign", "employees.assignLearning", {
    summary: "Assign learning to an employee",
    description: "Assigns learning (resources or skills, and a due date) to an employee.",
    effect: "add",
    body: "fields",
    read: (answer: Answer): Fields => asRecord(answer.data),
    request: "LearningBody",
    response: "Record",
  }),
  getSkillGap: op("GET /employees/{employeeId}/skill-gap", "employees.skillGap", {
    summary: "Get an employee's skill gap",
    description: "An employee's skill gap: the skills they lack for their job profile.",
    effect: "read",
    read: (answer: Answer): Fields => readRecord(answer, "skill gap"),
    response: "Record",
  }),
} as const satisfies Record<string, OperationRecord>;
export type Operation = keyof typeof OPERATIONS;

export const PATH_PARAMETERS: Record<string, string> = {
  testId: "the test's id",
  testInvitationId: "the invitation's (attempt's) id",
  testLinkId: "the test link's id",
  employeeId: "the employee's id",
  EmployeeId: "the employee's id",
};

export function operations(): Array<[Operation, OperationRecord]> {
  return Object.entries(OPERATIONS) as Array<[Operation, OperationRecord]>;
}

export function isSkills(path: string): boolean {
  return !path.startsWith("/v3/");
}
