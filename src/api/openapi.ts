/**
 * An OpenAPI 3.1 document of both services (`assess openapi`), generated from what the client already holds:
 * every route of ROUTES, the zod schemas of its requests and answers (zod 4 writes JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1), and the service's error bodies. Nothing here is loaded unless that command
 * runs. Request schemas are the strict ones the client checks before sending; answer schemas are the lenient
 * ones it reads with (documented fields typed, any other field allowed).
 */

import * as z from "../parse/zod.js";
import { MAX_BULK_CANDIDATES, MAX_CALLBACK_IDS, MAX_UPSERT_EMPLOYEES } from "../spec/limits.js";
import { type Operation, ROUTES } from "./endpoints.js";
import * as s from "./schemas.js";

export interface Servers {
  /** The assessment API's base URL (paths under /v3). */
  baseUrl: string;
  /** The employee-skills API's base URL (paths with no version segment). */
  skillsBaseUrl: string;
}

type Json = Record<string, unknown>;

const AnyObject = z.lazy(() => z.record(z.string(), z.unknown()));
const Int64 = z.lazy(() => z.number().int());

/**
 * The service's error bodies (API.md §7), and the two more its published samples show (fixtures/real/): a 400
 * as `{statusCode, message}`, a 429 as `{Message}`.
 */
const ErrorList = z.lazy(() => z.looseObject({ errors: z.array(z.string()) }));
const ResultErrors = z.lazy(() =>
  z.looseObject({ result: z.null(), errors: z.array(z.union([z.string(), z.number()])) }),
);
const StatusMessage = z.lazy(() => z.looseObject({ statusCode: z.number().int(), message: z.string() }));
const PascalMessage = z.lazy(() => z.looseObject({ Message: z.string() }));

/**
 * Every schema the document names, under `components.schemas`. Request bodies the client builds itself (the
 * attempt listing's span, the bulk invite, the upsert) are spelled here from the same parts.
 */
const SCHEMAS = {
  TestSettings: s.TestSettings,
  TestLinkBody: s.TestLinkBody,
  TestLink: s.TestLink,
  TestLinkList: z.lazy(() => z.looseObject({ testLinks: z.array(s.TestLink) })),
  Test: s.Test,
  TestList: z.lazy(() => z.looseObject({ tests: z.array(s.Test), count: z.number().int().nullish() })),
  InviteBody: s.InviteBody,
  LinkInviteBody: s.LinkInviteBody,
  ReattemptBody: s.ReattemptBody,
  Invitation: s.Invitation,
  BulkInviteBody: z.lazy(() =>
    s.BulkInviteSettings.unwrap().extend({
      candidates: z
        .array(z.strictObject({ email: s.Email, name: s.BulkCandidateName }))
        .min(1)
        .max(MAX_BULK_CANDIDATES),
    }),
  ),
  AttemptsBody: z.lazy(() => z.strictObject({ StartDateTime: s.UtcDateTime, EndDateTime: s.UtcDateTime })),
  TestAttempt: s.TestAttempt,
  TestAttemptList: z.lazy(() =>
    z.looseObject({
      result: z.looseObject({ testAttempts: z.array(s.TestAttempt) }),
      errors: z.null().optional(),
    }),
  ),
  CallbacksBody: z.lazy(() =>
    z.strictObject({ testinvitationIds: z.array(Int64).min(1).max(MAX_CALLBACK_IDS) }),
  ),
  CallbacksAnswer: z.lazy(() => z.looseObject({ result: s.CallbacksResult, errors: z.null().optional() })),
  // The real service's report carries testId as a string ("1134601": fixtures/real/reports/get-200.json);
  // the client reads it either way (an optional field that does not fit is not needed).
  Report: z.lazy(() => s.Report.unwrap().extend({ testId: z.union([z.number(), z.string()]).nullish() })),
  UserCreateBody: s.UserCreateBody,
  UserUpdateBody: s.UserUpdateBody,
  UserStatusBody: s.UserStatusBody,
  User: s.User,
  GdprBody: s.GdprBody,
  GdprAnswer: z.lazy(() => z.looseObject({ result: z.string() })),
  EmployeeUpsertItem: s.EmployeeUpsertItem,
  UpsertBody: z.lazy(() => z.array(s.EmployeeUpsertItem).min(1).max(MAX_UPSERT_EMPLOYEES)),
  UpsertResult: s.UpsertResult,
  SkillsPage: s.SkillsPage,
  Certificate: z.lazy(() =>
    z.looseObject({
      title: z.string().optional(),
      issuer: z.string().optional(),
      issueDate: z.string().optional(),
    }),
  ),
  CertificateList: z.lazy(() => z.looseObject({ items: z.array(AnyObject) })),
  EmployeeStatusBody: z.lazy(() => z.looseObject({ status: z.string() })),
  LearningBody: z.lazy(() =>
    z.looseObject({
      learningResourceIds: z.array(z.unknown()).optional(),
      skills: z.array(z.string()).optional(),
      dueDate: z.string().optional(),
    }),
  ),
  Record: AnyObject,
  ErrorList,
  ResultErrors,
  StatusMessage,
  PascalMessage,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof SCHEMAS;

interface OperationDoc {
  summary: string;
  tag: string;
  query?: Array<{ name: string; schema: Json; required?: boolean; description: string }>;
  body?: SchemaName | { contentType: string; schema: Json; description: string };
  /** The 200 answer: a named schema (JSON), or another content. */
  answer?: SchemaName | { contentType: string; schema: Json };
  /** The answer is also sent as text/plain (API.md declares it so). */
  alsoText?: boolean;
  /** The real service answers 201 (fixtures/real/), with the same body as a 200. */
  created?: boolean;
  /** A 401 of the `{result: null, errors}` shape, besides a bad key's. */
  resultErrors?: boolean;
}

const PAGE = (name: string, description: string) => ({
  name,
  schema: { type: "integer", minimum: 1 },
  description,
});
const TESTS_PAGING = [
  PAGE("pageNo", "page number, from 1"),
  PAGE("pageSize", "items per page (the service allows 1 to 100)"),
];
const SKILLS_PAGING = [
  PAGE("PageNumber", "page number, from 1"),
  PAGE("PageSize", "items per page (the service allows 1 to 100)"),
];

/** What the document says of each operation; keyed by ROUTES, so a route without its entry does not compile. */
const OPERATIONS: Record<Operation, OperationDoc> = {
  listTests: { summary: "List tests", tag: "tests", query: TESTS_PAGING, answer: "TestList" },
  getTest: { summary: "Get a test", tag: "tests", answer: "Record" },
  invite: {
    summary: "Invite a candidate",
    tag: "invitations",
    body: "InviteBody",
    answer: "Invitation",
    created: true,
  },
  getReport: {
    summary: "Get a candidate's report",
    tag: "reports",
    query: [
      {
        name: "reportType",
        schema: { type: "integer", enum: [1, 2, 3] },
        description: "the kind of report (1, 2 or 3)",
      },
    ],
    answer: "Report",
  },
  getReportPdf: {
    summary: "Get a candidate's report as PDF",
    tag: "reports",
    answer: {
      contentType: "application/pdf",
      schema: { type: "string", contentMediaType: "application/pdf" },
    },
  },
  cancelInvitation: {
    summary: "Cancel an invitation",
    tag: "invitations",
    body: { contentType: "application/json", schema: { type: "object" }, description: "an empty object" },
    answer: "Record",
  },
  reattempt: {
    summary: "Let a candidate reattempt",
    tag: "invitations",
    body: "ReattemptBody",
    answer: "Record",
  },
  inviteThroughLink: {
    summary: "Invite a candidate through a test link",
    tag: "invitations",
    body: "LinkInviteBody",
    answer: "Invitation",
    created: true,
  },
  getSettings: { summary: "Get a test's settings", tag: "tests", answer: "TestSettings" },
  updateSettings: {
    summary: "Change a test's settings",
    tag: "tests",
    body: "TestSettings",
    answer: "Record",
    created: true,
  },
  listAttempts: {
    summary: "List finished attempts of a period (at most 30 days)",
    tag: "attempts",
    query: [
      {
        name: "state",
        schema: { type: "string", default: "completed" },
        required: true,
        description: "attempts that are Completed, Testleft or Terminated: `completed`",
      },
    ],
    body: "AttemptsBody",
    answer: "TestAttemptList",
    resultErrors: true,
  },
  processCallbacks: {
    summary: "Resend test-completion notifications (at most 100 ids)",
    tag: "callbacks",
    body: "CallbacksBody",
    answer: "CallbacksAnswer",
    resultErrors: true,
  },
  bulkInvite: {
    summary: "Invite up to 1000 candidates",
    tag: "invitations",
    body: "BulkInviteBody",
    answer: { contentType: "text/plain", schema: { type: "boolean" } },
  },
  listLinks: { summary: "List a test's links", tag: "links", answer: "TestLinkList" },
  createLink: { summary: "Create a test link", tag: "links", body: "TestLinkBody", answer: "TestLink" },
  getLink: { summary: "Get a test link", tag: "links", answer: "TestLink" },
  updateLink: { summary: "Change a test link", tag: "links", body: "TestLinkBody", answer: "TestLink" },
  createUser: { summary: "Create a user", tag: "users", body: "UserCreateBody", answer: "User" },
  updateUser: {
    summary: "Move a user to a business unit",
    tag: "users",
    body: "UserUpdateBody",
    answer: "User",
  },
  setUserStatus: {
    summary: "Activate or deactivate a user",
    tag: "users",
    body: "UserStatusBody",
    answer: "User",
  },
  maskCandidate: {
    summary: "Mask a candidate's data (GDPR)",
    tag: "gdpr",
    body: "GdprBody",
    answer: "GdprAnswer",
  },
  listEmployees: { summary: "List employees", tag: "employees", query: SKILLS_PAGING, answer: "SkillsPage" },
  getSkillsProfile: { summary: "Get an employee's skills profile", tag: "employees", answer: "Record" },
  upsertEmployees: {
    summary: "Create or update up to 100 employees",
    tag: "employees",
    body: "UpsertBody",
    answer: "UpsertResult",
    alsoText: true,
  },
  listCertificates: {
    summary: "List an employee's certificates",
    tag: "employees",
    query: [
      {
        name: "includeSkills",
        schema: { type: "boolean" },
        description: "include the skills related to each certificate",
      },
    ],
    answer: "CertificateList",
  },
  setEmployeeStatus: {
    summary: "Change an employee's status",
    tag: "employees",
    body: "EmployeeStatusBody",
    answer: "Record",
  },
  getEmployeeReport: {
    summary: "Get an employee's latest completed report of a test",
    tag: "employees",
    answer: "Report",
  },
  addCertificate: {
    summary: "Store a certificate of an employee",
    tag: "employees",
    body: "Certificate",
    answer: "Record",
  },
  uploadResume: {
    summary: "Upload an employee's resume (PDF, DOC or DOCX)",
    tag: "employees",
    body: {
      contentType: "multipart/form-data",
      schema: {
        type: "object",
        properties: { file: { type: "string", contentMediaType: "application/octet-stream" } },
        required: ["file"],
      },
      description: "the resume, as the form field `file`",
    },
    answer: "Record",
  },
  listSkillsProfiles: {
    summary: "List employees with their skills profiles",
    tag: "employees",
    query: SKILLS_PAGING,
    answer: "SkillsPage",
  },
  assignLearning: {
    summary: "Assign learning to an employee",
    tag: "employees",
    body: "LearningBody",
    answer: "Record",
  },
  getSkillGap: { summary: "Get an employee's skill gap", tag: "employees", answer: "Record" },
};

const PATH_PARAMETERS: Record<string, string> = {
  testId: "the test's id",
  testInvitationId: "the invitation's (attempt's) id",
  testLinkId: "the test link's id",
  employeeId: "the employee's id",
  EmployeeId: "the employee's id",
};

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ "application/json": { schema } });

/** The error answers every operation may get, with the bodies the service documents and sends. */
const ERROR_RESPONSES = {
  BadRequest: {
    description: "The request was refused: `errors` lists the service's messages (or one `message`)",
    content: json({ anyOf: [ref("ErrorList"), ref("StatusMessage")] }),
  },
  Unauthorized: {
    description: "The API key is missing, not valid, or its subscription has expired",
    content: { ...json(ref("StatusMessage")), "text/plain": { schema: { type: "string" } } },
  },
  Forbidden: {
    description: "The resource belongs to another account (You do not have permission to access resource)",
    content: json(ref("StatusMessage")),
  },
  NotFound: { description: "No such resource", content: json(ref("StatusMessage")) },
  TooManyRequests: {
    description: "Too many requests or quota exhausted; wait for Retry-After when it is sent",
    headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" } } },
    content: json({ anyOf: [ref("StatusMessage"), ref("PascalMessage")] }),
  },
};

/** Operations whose paths carry no /v3 segment are the employee-skills API's (API.md §9). */
function isSkillsPath(path: string): boolean {
  return !path.startsWith("/v3/");
}

/** The operations of ROUTES as the document has them: id, method (lower case) and path. */
function routeList(): Array<{ operationId: Operation; method: string; path: string }> {
  return (Object.entries(ROUTES) as Array<[Operation, string]>).map(([operationId, route]) => {
    const [method, path] = route.split(" ") as [string, string];
    return { operationId, method: method.toLowerCase(), path };
  });
}

/** The whole document, as a plain JSON value. */
export function openApiDocument(servers: Servers): Json {
  const paths: Record<string, Json> = {};
  for (const { operationId, method, path } of routeList()) {
    paths[path] ??= isSkillsPath(path)
      ? { servers: [{ url: servers.skillsBaseUrl, description: "employee-skills API" }] }
      : {};
    paths[path][method] = operation(operationId, path);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Assessment and employee-skills service",
      version: "3",
      description:
        "Both APIs of the service as the `assess` CLI calls them, generated from its schemas (`assess openapi`). " +
        "Assessment operations are served under the assessment base URL, paths under /v3; employee-skills " +
        "operations under the skills base URL (each of their paths names its server). Answer schemas list the " +
        "documented fields and allow others. The client also reads an answer wrapped in a `{result, errors}` " +
        "envelope, and a list bare or under another key: the shapes here are the documented ones.",
    },
    servers: [{ url: servers.baseUrl, description: "assessment API" }],
    security: [{ apiKey: [] }],
    tags: [...new Set(Object.values(OPERATIONS).map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "the account's API key" },
      },
      schemas: componentSchemas(),
      responses: ERROR_RESPONSES,
    },
  };
}

function operation(operationId: Operation, path: string): Json {
  const doc = OPERATIONS[operationId];
  const parameters: Json[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    description: PATH_PARAMETERS[name!] ?? name,
    schema: { type: "integer", format: "int64", minimum: 1 },
  }));
  for (const q of doc.query ?? []) {
    parameters.push({
      name: q.name,
      in: "query",
      required: q.required ?? false,
      description: q.description,
      schema: q.schema,
    });
  }
  const responses: Json = {
    "200": { description: "Success", ...(doc.answer ? { content: answerContent(doc) } : {}) },
    ...(doc.created
      ? { "201": { description: "Success", ...(doc.answer ? { content: answerContent(doc) } : {}) } }
      : {}),
    "400": { $ref: "#/components/responses/BadRequest" },
    "401": doc.resultErrors
      ? {
          description:
            "A bad key (`statusCode`, `message`), or ids not in the account: `errors` holds a message, then the ids",
          content: json({ anyOf: [ref("StatusMessage"), ref("ResultErrors")] }),
        }
      : { $ref: "#/components/responses/Unauthorized" },
    "403": { $ref: "#/components/responses/Forbidden" },
    "404": { $ref: "#/components/responses/NotFound" },
    "429": { $ref: "#/components/responses/TooManyRequests" },
  };
  const result: Json = { operationId, summary: doc.summary, tags: [doc.tag] };
  if (parameters.length > 0) result.parameters = parameters;
  if (doc.body) {
    result.requestBody =
      typeof doc.body === "string"
        ? { required: true, content: json(ref(doc.body)) }
        : {
            required: doc.body.contentType !== "application/json",
            description: doc.body.description,
            content: { [doc.body.contentType]: { schema: doc.body.schema } },
          };
  }
  result.responses = responses;
  return result;
}

function answerContent(doc: OperationDoc): Json {
  const answer = doc.answer!;
  if (typeof answer !== "string") return { [answer.contentType]: { schema: answer.schema } };
  return doc.alsoText ? { ...json(ref(answer)), "text/plain": { schema: ref(answer) } } : json(ref(answer));
}

/**
 * The named schemas as JSON Schema, each referring to the others by `$ref`. zod marks every integer with
 * JavaScript's safe bounds; those say nothing about the service and are dropped.
 */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: "input",
    unrepresentable: "any",
  });
  const out: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as Json;
    out[id] = tidy(rest) as Json;
  }
  return out;
}

function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "minimum" && inner === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && inner === Number.MAX_SAFE_INTEGER) continue;
    out[key] = tidy(inner);
  }
  return out;
}
