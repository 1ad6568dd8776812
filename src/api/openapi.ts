/**
 * The OpenAPI 3.1 document of both services (`assess openapi`), generated from the table of operations and the
 * zod schemas of requests (strict) and answers (lenient); zod 4 writes JSON Schema 2020-12, OpenAPI 3.1's dialect.
 */

import * as z from "../parse/zod.js";
import {
  isSkills,
  OPERATIONS,
  type Operation,
  type OperationRecord,
  operations,
  PATH_PARAMETERS,
  pathParameters,
} from "./operations/index.js";
import * as s from "./schemas.js";

type Json = Record<string, unknown>;

const AnyObject = z.lazy(() => z.record(z.string(), z.unknown()));
const Int64 = z.lazy(() => z.number().int());

/** Every schema the document names; request bodies the client builds itself are spelled from the same parts. */
const SCHEMAS = {
  TestSettings: s.TestSettings,
  TestLinkBody: s.TestLinkBody,
  TestLink: s.TestLink,
  TestLinkList: z.lazy(() => z.looseObject({ testLinks: z.array(s.TestLink) })),
  Test: s.Test,
  TestDetail: s.TestDetail,
  TestList: z.lazy(() => z.looseObject({ tests: z.array(s.Test), count: z.number().int().nullish() })),
  InviteBody: s.InviteBody,
  LinkInviteBody: s.LinkInviteBody,
  ReattemptBody: s.ReattemptBody,
  Invitation: s.Invitation,
  BulkInviteBody: z.lazy(() =>
    s.BulkInviteSettings.unwrap().extend({
      candidates: z.array(s.BulkCandidate).min(1).max(OPERATIONS.bulkInvite.limits.items),
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
  // The real service's report carries testId as a string ("1134601"); the client reads it either way.
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
  EmployeeStatusBody: z.lazy(() => z.looseObject({ status: s.EmployeeStatus })),
  LearningBody: z.lazy(() =>
    z.looseObject({
      learningResourceIds: z.array(z.unknown()).optional(),
      skills: z.array(z.string()).optional(),
      dueDate: z.string().optional(),
    }),
  ),
  Record: AnyObject,
  // The documented error bodies, and the two more the service's samples show: `{statusCode, message}`, `{Message}`.
  ErrorList: z.lazy(() => z.looseObject({ errors: z.array(z.string()) })),
  ResultErrors: z.lazy(() =>
    z.looseObject({ result: z.null(), errors: z.array(z.union([z.string(), z.number()])) }),
  ),
  StatusMessage: z.lazy(() => z.looseObject({ statusCode: z.number().int(), message: z.string() })),
  PascalMessage: z.lazy(() => z.looseObject({ Message: z.string() })),
} satisfies Record<string, z.ZodType>;
type Named = keyof typeof SCHEMAS;

/** A named schema; a record naming one not among SCHEMAS is refused. */
function ref(name: string): Json {
  if (!Object.hasOwn(SCHEMAS, name))
    throw new Error(`no schema ${name} in the OpenAPI document's components`);
  return { $ref: `#/components/schemas/${name}` };
}
const json = (schema: Json) => ({ "application/json": { schema } });

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

export function openApiDocument(servers: { baseUrl: string; skillsBaseUrl: string }): Json {
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
  const parameters = [
    ...pathParameters(doc.path).map((name) => ({
      name,
      in: "path",
      required: true,
      description: PATH_PARAMETERS[name] ?? name,
      schema: { type: "integer", format: "int64", minimum: 1 },
    })),
    ...(doc.query ?? []).map(({ name, required = false, description, schema }) => ({
      name,
      in: "query",
      required,
      description,
      schema,
    })),
  ];
  // A new object each time: YAML would write one used twice as an anchor.
  const success = () => ({
    description: "Success",
    ...(doc.response ? { content: answerContent(doc) } : {}),
  });
  const responses: Json = {
    "200": success(),
    ...(doc.created ? { "201": success() } : {}),
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
  const request = doc.request ?? Object.keys(SCHEMAS).find((name) => SCHEMAS[name as Named] === doc.body);
  if (request) {
    result.requestBody =
      typeof request === "string"
        ? { required: true, content: json(ref(request)) }
        : {
            required: request.contentType !== "application/json",
            description: request.description,
            content: { [request.contentType]: { schema: request.schema } },
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

/** The named schemas as JSON Schema, referring to each other by `$ref`; zod's safe-integer bounds dropped. */
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
