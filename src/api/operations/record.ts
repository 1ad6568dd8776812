/** What a record of the table of operations (index.ts) holds, and the readers its records share. */
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
  path: string;
  resource: string;
  verb: string;
  summary: string;
  tag: string;
  description: string;
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
  limits?: { items: number };
  body?: z.ZodType | "fields" | "empty";
  read?: (answer: Answer) => unknown;
  raw?: true;
  request?: Content;
  response?: Content;
  created?: true;
  alsoText?: true;
  resultErrors?: true;
}

export const AnyRecord = z.record(z.string(), z.unknown());

export const PAGE = (name: string, description: string): QueryParameter => ({
  name,
  schema: { type: "integer", minimum: 1 },
  description,
});

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
