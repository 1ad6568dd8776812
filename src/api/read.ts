/**
 * Reading the service's answers as the real service sends them (envelopes, lists under any key or bare, any
 * casing, extra fields). An answer is never changed, and never refused for a detail the command does not need:
 * - a documented field spelled in another casing gets its documented name as a hidden (not enumerable) alias,
 *   so code and columns read it while `--json` prints the answer as it came;
 * - a field that does not fit is ignored when optional; only a required one stops the command.
 */
import { ApiError } from "../errors.js";
import { escapeControls } from "../escape.js";
import { type Fields, field, findKey, isRecord } from "../fields.js";
import type * as z from "../parse/zod.js";

/** An answer and where it came from, for errors that say how to see it raw (`assess api`). */
export interface Answer {
  /** The HTTP status (a 2xx). */
  status: number;
  data: unknown;
  method: string;
  /** The path as sent, with its query. */
  path: string;
  skills: boolean;
  /** `data` is text that is not JSON. */
  notJson?: boolean;
}

export interface Page<T> {
  items: T[];
  /** False on the last page. */
  more: boolean;
  total?: number;
}

/** Checks `answer` against `schema` leniently and returns it as it came. */
export function read<T>(schema: z.ZodType<T>, answer: Answer, what: string, given = answer.data): T {
  if (answer.notJson) throw notJsonError(answer, what);
  const data = wrapped(schema, given) ?? given;
  addAliases(data, schema);
  const parsed = schema.safeParse(data);
  if (parsed.success) return data as T;
  const fatal = parsed.error.issues.find((issue) => !underOptionalField(schema, issue.path));
  if (!fatal) return data as T;
  const where = fatal.path.length > 0 ? fatal.path.join(".") : undefined;
  const missing = where !== undefined && valueAt(data, fatal.path) === undefined;
  const problem = where
    ? missing
      ? `has no ${where}`
      : `has an unexpected ${where} (${fatal.message})`
    : `is not what was expected (${fatal.message})`;
  throw answerError(answer, `The service's answer (${what}) ${problem}: ${preview(answer.data)}`);
}

/** The list in an answer (bare, or under one of `keys` or another list-like key, in any envelope). */
export function readList<T>(schema: z.ZodType<T>, answer: Answer, keys: string[], what: string): T[] {
  return listOf(schema, answer, keys, what).items;
}

/**
 * One page: the last when the answer says so (`hasNextPage`, `totalPages`, a total reached), else when short or
 * empty. (`count` is a total only when it exceeds the page: the service's may be either.)
 */
export function readPage<T>(
  schema: z.ZodType<T>,
  answer: Answer,
  keys: string[],
  what: string,
  pageNumber: number,
  pageSize: number,
): Page<T> {
  const { items, meta } = listOf(schema, answer, keys, what);
  const count = meta.count !== undefined && meta.count > items.length ? meta.count : undefined;
  const total = meta.totalCount ?? count;
  const seen = (pageNumber - 1) * pageSize + items.length;
  let more: boolean;
  if (items.length === 0) more = false;
  else if (meta.hasNextPage !== undefined) more = meta.hasNextPage;
  else if (meta.totalPages !== undefined) more = pageNumber < meta.totalPages;
  else if (total !== undefined) more = seen < total;
  else more = items.length >= pageSize;
  if (total !== undefined && seen >= total) more = false;
  return { items, more, total };
}

function listOf<T>(schema: z.ZodType<T>, answer: Answer, keys: string[], what: string) {
  if (answer.notJson) throw notJsonError(answer, what);
  const found = findList(answer.data, keys);
  if (!found) {
    const looked = keys.length > 0 ? ` (looked for ${keys.join(", ")})` : "";
    const message = `The service's answer holds no list of ${what}${looked}`;
    throw answerError(answer, `${message}: ${preview(answer.data)}`);
  }
  return { items: read(schema.array(), answer, what, found.items), meta: found.meta };
}

interface PageMeta {
  hasNextPage?: boolean;
  totalCount?: number;
  totalPages?: number;
  count?: number;
}

const META_KEYS: Record<keyof PageMeta, string[]> = {
  hasNextPage: ["hasNextPage", "hasMore", "hasNext"],
  totalCount: ["totalCount", "total", "totalRecords", "totalItems", "totalResults"],
  totalPages: ["totalPages", "pageCount"],
  count: ["count"],
};
/** Keys a list may sit under, after the operation's own (`tests`, `testLinks`, ...). */
const LIST_KEYS = ["items", "data", "result", "results", "records", "list", "values", "value"];

function findList(data: unknown, keys: string[]): { items: unknown[]; meta: PageMeta } | undefined {
  const meta: PageMeta = {};
  let current = data;
  for (let depth = 0; depth < 4; depth++) {
    if (Array.isArray(current)) return { items: current, meta };
    if (current === undefined || current === null || current === "") return { items: [], meta };
    if (!isRecord(current)) return undefined;
    readMeta(current, meta);
    const record = current;
    const under = [...keys, ...LIST_KEYS].flatMap((key) => findKey(record, key) ?? []);
    const next = under.map((key) => record[key]).find((value) => Array.isArray(value) || isRecord(value));
    if (next === undefined) {
      const arrays = Object.values(record).filter(Array.isArray);
      if (arrays.length === 1) return { items: arrays[0]!, meta };
      // `{"result": null, "errors": null}`, `{"tests": null}`: an empty list. So is one a serializer left out
      // (`{}`, `{"count": 0}`, `{"totalCount": 0, "hasNextPage": false}`): the answer says there are none.
      const none = arrays.length === 0 && (meta.totalCount === 0 || meta.count === 0);
      return none || Object.keys(record).length === 0 || under.some((key) => record[key] === null)
        ? { items: [], meta }
        : undefined;
    }
    current = next;
  }
  return undefined;
}

function readMeta(record: Fields, meta: PageMeta): void {
  for (const [name, aliases] of Object.entries(META_KEYS) as [keyof PageMeta, string[]][]) {
    for (const alias of aliases) {
      const value = field(record, alias);
      // Counts may come as numeric strings (`"totalCount": "45"`), flags as words (`"hasNextPage": "true"`).
      const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
      const count = text !== undefined && /^\d+$/.test(text) ? Number(text) : value;
      const flag = text === "true" || text === "false" ? text === "true" : value;
      if (name === "hasNextPage" ? typeof flag === "boolean" : typeof count === "number") {
        (meta as Fields)[name] = name === "hasNextPage" ? flag : count;
        break;
      }
    }
  }
}

const ENVELOPE_KEYS = new Set([
  "result",
  "data",
  "errors",
  "error",
  "statuscode",
  "message",
  "success",
  "issuccess",
]);

/** What is inside `{"result": {...}, "errors": null}` or `{"data": {...}}`; a record with fields of its own is no envelope. */
export function unwrap(data: unknown): unknown {
  if (!isRecord(data)) return data;
  const keys = Object.keys(data);
  if (keys.some((key) => !ENVELOPE_KEYS.has(key.toLowerCase()))) return data;
  const inner = field(data, "result") ?? field(data, "data");
  return inner !== null && typeof inner === "object" ? unwrap(inner) : data;
}

/**
 * A write the service answered 2xx, saying it did not do it (`false`, `{"success": false, …}`): refused, not of
 * unknown outcome. To the SDK's users an AssessApiError like any other, by class and by name.
 */
export class RefusedError extends ApiError {
  constructor(...args: ConstructorParameters<typeof ApiError>) {
    super(...args);
    this.name = ApiError.name;
  }
}

/** A 2xx answer that is text where JSON was expected, said as such with its first line (escaped). */
export function notJsonError(answer: Answer, what: string): ApiError {
  return answerError(answer, `The service's answer (${what}) is ${describeText(answer.data)}`);
}

/** An answer the command cannot use (exit 1), and how to see it raw (`assess api`; a write: --debug). */
function answerError(answer: Answer, message: string): ApiError {
  const api = `assess api ${answer.method} ${answer.path}${answer.skills ? " --skills" : ""}`;
  const suggestion =
    answer.method === "GET"
      ? `See the whole answer with \`${api}\`; --debug shows the exchange.`
      : `Run with --debug to see the exchange (\`${api} --data …\` sends the request raw, and sends it again).`;
  return new ApiError(200, [message], { body: answer.data, suggestion });
}

/** `an HTML page titled "Sign in", not JSON; its first line: <!DOCTYPE html>`, for text that is not JSON. */
export function describeText(data: unknown): string {
  const text = String(data).trim();
  let kind: string;
  if (isHtml(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, " ").trim();
    kind = `an HTML page${title ? ` titled "${clip(escapeControls(title), 120)}"` : ""}, not JSON`;
  } else if (nestsDeeperThan(text, MAX_DEPTH)) {
    kind = `JSON nested more than ${MAX_DEPTH} levels deep, more than any answer of the service; not read`;
  } else if (/^[[{"]/.test(text)) {
    kind = "not JSON: it starts as JSON but breaks off or goes wrong part-way (cut short?)";
  } else {
    kind = "not JSON";
  }
  const firstLine = text.split(/\r?\n/, 1)[0] ?? "";
  return `${kind}; its first line: ${clip(escapeControls(firstLine), 200)}`;
}

/** Nesting no answer comes near; deeper JSON would overflow the stack of whatever walks it. */
export const MAX_DEPTH = 256;

/** Whether JSON text opens more than `max` arrays or objects inside one another (strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max * 2) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** An HTML page, as proxies and login portals answer: a doctype, or a tag at the start. */
export function isHtml(text: string): boolean {
  return /^(?:\uFEFF)?\s*<(?:!doctype\s+html|html|head|body|!--|\?xml|[a-z][\w-]*[\s>])/i.test(text);
}

/** `text` cut to `max` characters, the last an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function preview(data: unknown): string {
  return clip(typeof data === "string" ? data : (JSON.stringify(data) ?? String(data)), 200);
}

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

// Walking a zod schema (zod 4's `_zod.def`), to name documented fields and tell optional ones.

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  getter?: () => Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
  options?: Schema[];
}
interface Schema {
  _zod: { def: Def; innerType?: Schema };
  safeParse(value: unknown): { success: boolean };
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"]);

function bare(schema: Schema): Schema {
  let current = schema;
  for (let i = 0; i < 16; i++) {
    const def = current._zod.def;
    // zod keeps a built lazy schema as `innerType`; its getter would build it anew on every call (slow).
    if (def.type === "lazy") current = current._zod.innerType ?? (def.getter as () => Schema)();
    else if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else break;
  }
  return current;
}

function child(schema: Schema, key: PropertyKey): Schema | undefined {
  const def = bare(schema)._zod.def;
  if (def.type === "object" && typeof key === "string") return def.shape?.[key];
  if (def.type === "array" && typeof key === "number") return def.element;
  if (def.type === "record") return def.valueType;
  if (def.type === "union") return def.options?.map((option) => child(option, key)).find(Boolean);
  return undefined;
}

/** Gives documented fields spelled otherwise their documented name, as hidden aliases, all the way down. */
function addAliases(data: unknown, schema: z.ZodType | Schema): void {
  const s = bare(schema as Schema);
  const def = s._zod.def;
  if (def.type === "array" && Array.isArray(data) && def.element) {
    for (const item of data) addAliases(item, def.element);
  } else if (def.type === "union") {
    for (const option of def.options ?? []) addAliases(data, option);
  } else if (def.type === "object" && isRecord(data)) {
    for (const [name, fieldSchema] of Object.entries(def.shape ?? {})) {
      const key = findKey(data, name);
      if (key === undefined) continue;
      if (key !== name) {
        Object.defineProperty(data, name, { value: data[key], enumerable: false, configurable: true });
      }
      addAliases(data[key], fieldSchema);
    }
  }
}

/**
 * The record inside a wrapper named for it (`{"test": {...}}`, `{"user": {...}}`, `{"tests": [{...}]}`): an answer
 * holding none of the record's documented fields and, beside envelope keys, one key, whose value is a record (or
 * a list of one) holding some. Undefined when `data` is no such wrapper.
 */
function wrapped(schema: z.ZodType | Schema, data: unknown): Fields | undefined {
  const fields = Object.keys(bare(schema as Schema)._zod.def.shape ?? {});
  if (fields.length === 0) return undefined;
  const documented = (value: unknown): value is Fields =>
    isRecord(value) && fields.some((name) => findKey(value, name) !== undefined);
  const one = (value: unknown) =>
    Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  let inner: unknown;
  if (Array.isArray(data)) inner = one(data);
  else if (isRecord(data) && !documented(data)) {
    const keys = Object.keys(data).filter((key) => !ENVELOPE_KEYS.has(key.toLowerCase()));
    if (keys.length === 1) inner = one(data[keys[0]!]);
  }
  return documented(inner) ? inner : undefined;
}

/** Whether the issue at `path` lies in a field the schema lets be absent: then it is ignored. */
function underOptionalField(schema: z.ZodType | Schema, path: PropertyKey[]): boolean {
  let current: Schema | undefined = schema as Schema;
  for (const key of path) {
    current = current ? child(current, key) : undefined;
    if (!current) return true; // not a documented field: never a reason to refuse
    if (typeof key === "string" && current.safeParse(undefined).success) return true;
  }
  return false;
}
