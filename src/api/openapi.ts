/**
 * An OpenAPI 3.1 document of both services (`assess openapi`), generated from what the client already holds:
 * every operation of the table (operations/), the zod schemas of its requests and answers (zod 4 writes JSON
 * Schema 2020-12, the dialect of OpenAPI 3.1), and the service's error bodies. Nothing here is loaded unless
 * that command runs. Request schemas are the strict ones the client checks before sending; answer schemas are the lenient
 * ones it reads with (documented fields typed, any other field allowed).
 */

import * as z from "../parse/zod.js";
import {
  isSkills,
  OPERATIONS,
  type Operation,
  type OperationRecord,
  operations,
  PATH_PARAMETERS,
} from "./operations/index.js";
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
 * The service's error bodies as it documents them, and the two more its published samples show
 * (fixtures/real/): a 400 as `{statusCode, message}`, a 429 as `{Message}`.
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
        .max(OPERATIONS.bulkInvite.limits.items),
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
    z.strictObject({
      testinvitationIds: z.array(Int64).min(1).max(OPERATIONS.processCallbacks.limits.items),
    }),
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
  UpsertBody: z.lazy(() => z.array(s.EmployeeUpsertItem).min(1).max(OPERATIONS.upsertEmployees.limits.items)),
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

/** A named schema; the name is a record's (operations/), so one not among SCHEMAS is refused. */
function ref(name: string): Json {
  if (!Object.hasOwn(SCHEMAS, name))
    throw new Error(`no schema ${name} in the OpenAPI document's components`);
  return { $ref: `#/components/schemas/${name}` };
}
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

/** The whole document, as a plain JSON value. */
export function openApiDocument(servers: Servers): Json {
  const paths: Record<string, Json> = {};
  for (const [operationId, record] of operations()) {
    const { path } = record;
    paths[path] ??= isSkills(path)
      ? { servers: [{ url: servers.skillsBaseUrl, description: "employee-skills API" }] }
      : {};
    paths[path][record.method.toLowerCase()] = operation(operationId, record);
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
    tags: [...new Set(operations().map(([, o]) => o.tag))].map((name) => ({ name })),
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

function operation(operationId: Operation, doc: OperationRecord): Json {
  const parameters: Json[] = [...doc.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
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
    "200": { description: "Success", ...(doc.response ? { content: answerContent(doc) } : {}) },
    ...(doc.created
      ? { "201": { description: "Success", ...(doc.response ? { content: answerContent(doc) } : {}) } }
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
  if (doc.request) {
    result.requestBody =
      typeof doc.request === "string"
        ? { required: true, content: json(ref(doc.request)) }
        : {
            required: doc.request.contentType !== "application/json",
            description: doc.request.description,
            content: { [doc.request.contentType]: { schema: doc.request.schema } },
          };
  }
  result.responses = responses;
  return result;
}

function answerContent(doc: OperationRecord): Json {
  const answer = doc.response!;
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
