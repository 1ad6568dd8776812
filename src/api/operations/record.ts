/** What a record of the table of operations (index.ts) holds, how one is written, and the readers they share. */
import { field, isRecord } from "../../fields.js";
import * as z from "../../parse/zod.js";
import { type Answer, isHtml, notJsonError, read } from "../read.js";
import * as s from "../schemas.js";

export type Fields = Record<string, unknown>;
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
  /** For the OpenAPI document: body and answer; 201 too; the answer also text/plain; a 401 of ids. */
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
export function op<
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

export function query(name: string, schema: Json, description: string, required?: true): QueryParameter {
  return { name, schema, required, description };
}

/** A paged list: its page parameters, as documented query parameters, and where its items are. */
export function paged<I extends z.ZodType>(
  page: string,
  size: string,
  items: I,
  keys: string[],
  what: string,
) {
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

export const AnyRecord = z.record(z.string(), z.unknown());

export function asRecord(data: unknown): Fields {
  return isRecord(data) ? data : { result: data };
}

/** A read's answer as a record, whatever its shape; but an HTML page (a login page that says 200) is no answer. */
export function readRecord(answer: Answer, what: string): Fields {
  if (answer.notJson && isHtml(String(answer.data))) throw notJsonError(answer, what);
  return asRecord(answer.data);
}

/** A test link's answer: the link itself, or the link under `testLink` (or an envelope). */
export function readLink(answer: Answer): s.TestLink {
  const inner = field(answer.data, "testLink");
  return read(s.TestLink, answer, "test link", isRecord(inner) ? inner : answer.data);
}
