import type { Readable } from "node:stream";
import { ApiError, AuthError, CliError, DryRunStop, NetworkError, UncertainError } from "../errors.js";
import { field, isRecord } from "../fields.js";
import { redactKey, showAs, withHiddenKey } from "../redact.js";
import { MAX_DEPTH, nestsDeeperThan } from "./read.js";
import { backoffMs, isIdempotent, neverSent, retryAfterMs, retryableStatus } from "./retry.js";
import { Agent, type Dispatcher, request } from "./undici.js";
import { joinUrl } from "./url.js";

export type ApiName = "assess" | "skills";

export interface ClientOptions {
  baseUrl: string;
  skillsBaseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retries: number;
  userAgent: string;
  /** One line per request and answer (`--debug`); the key never reaches it. */
  debug?: (line: string) => void;
  /** Retry waits: each wait is logged on stderr, with or without `--debug`. */
  warn: (line: string) => void;
  /**
   * With `--dry-run`: receives every request before it goes out, and says whether to send it: true only for
   * a read (`readOnly`) of a command that reads to plan what it would write. A request not sent ends the
   * command (DryRunStop).
   */
  dryRun?: (request: DryRunRequest, readOnly: boolean) => boolean;
  sleep?: (ms: number) => Promise<void>;
}

export interface DryRunRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface RequestOptions {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Path with a leading slash, parameters already substituted. */
  path: string;
  api?: ApiName;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON body. */
  body?: unknown;
  /** A JSON body already serialized (a bulk request put together from its items' bytes: api/json.ts). */
  json?: string | Uint8Array;
  /** A body that is not JSON (multipart upload); `data` is called again for each attempt. */
  raw?: { contentType: string; data: () => Buffer | Readable; describe: unknown };
  /** The answer is bytes (a PDF), written to `download` as they arrive instead of read as JSON or text. */
  download?: Download;
  /** A POST that only reads (the attempt listing) may be retried and replayed like a GET. */
  safe?: boolean;
  /** Bulk runs want uncertain answers as an error they can recognise, single commands too. */
  signal?: AbortSignal;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** The body as JSON; the text itself when it is not JSON (`notJson`); with `download`, its size in bytes. */
  data: T;
  /** The body was text that is not JSON (an HTML page, a JSON text cut short, plain words). */
  notJson?: boolean;
}

/**
 * Where a downloaded answer's bytes go (`reports pdf`): `begin` is called when a 2xx answer's body starts,
 * and again when a retry starts it over; the function it returns receives the bytes in order, and may
 * return a promise the download waits for (a slow pipe on stdout). A CliError thrown by either ends the
 * request (a full disk).
 */
export interface Download {
  begin(): (chunk: Uint8Array) => void | Promise<void>;
  /** False when the download cannot start over (bytes already gone to stdout): a failure is then final. */
  canRestart?(): boolean;
}

/**
 * The most of one answer assess reads. Far above any answer of the service (a page of a list, 30 days of
 * attempts), far below what would hurt: a server that streams without end is cut off here, not at the
 * machine's memory. Exceeding it ends the request; it is not retried (it would only come again).
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** A download streamed to disk (a report's PDF) is never held whole, so it may be larger. */
export const MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024;
/** An error answer is read this far: enough for any message; its status is what counts. */
const MAX_ERROR_BYTES = 1024 * 1024;
/** Shorter keys would match ordinary words and ids in answers; real keys are far longer. */
const MIN_HIDDEN_KEY = 8;
const DEADLINE = "ASSESS_DEADLINE";
const TOO_LARGE = "ASSESS_TOO_LARGE";

/** A limit of one attempt was reached: its deadline (`--timeout`) or the cap on an answer's size. */
class LimitError extends Error {
  constructor(
    readonly code: typeof DEADLINE | typeof TOO_LARGE,
    message: string,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 3;
const KEY_HEADER = "x-api-key";

/**
 * The one HTTP client for both base URLs: joins paths onto base URLs that may carry a path prefix,
 * sends the key, applies timeouts and the retry policy, and turns every failure into a typed error.
 */
export class ApiClient {
  readonly options: ClientOptions;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Shared across concurrent requests: a 429 slows every worker down, not only the one that got it. */
  private pauseUntil = 0;
  private readonly rateLimitListeners = new Set<(sentAt: number) => void>();

  constructor(options: ClientOptions) {
    // undici would refuse every request as if the network failed (and a POST as "maybe processed").
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
      throw new AuthError(
        "The API key cannot be sent in an HTTP header: it holds a space, a line break or a non-ASCII character",
        { suggestion: "Copy the key again, then run `assess auth login` or set ASSESS_API_KEY." },
      );
    }
    // The key stays readable (`options.apiKey`) but never shows: not in JSON, inspect or a spread copy.
    this.options = withHiddenKey(options);
    showAs(this, () => ({ options: this.options }));
    this.dispatcher = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: options.timeoutMs } });
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  url(api: ApiName, path: string, query?: RequestOptions["query"]): string {
    return joinUrl(api === "skills" ? this.options.skillsBaseUrl : this.options.baseUrl, path, query);
  }

  async request<T = unknown>(opts: RequestOptions): Promise<ApiResponse<T>> {
    const url = this.url(opts.api ?? "assess", opts.path, opts.query);
    const headers: Record<string, string> = {
      [KEY_HEADER]: this.options.apiKey,
      accept: opts.download ? "application/pdf, */*" : "application/json, text/plain, */*",
      "user-agent": this.options.userAgent,
    };
    const payload = opts.json ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined);
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (opts.raw) headers["content-type"] = opts.raw.contentType;

    const idempotent = opts.safe === true || isIdempotent(opts.method);
    if (this.options.dryRun) {
      const shown = {
        method: opts.method,
        url,
        headers: { ...headers, [KEY_HEADER]: redactKey(this.options.apiKey) },
        body: opts.raw
          ? opts.raw.describe
          : opts.json !== undefined
            ? JSON.parse(Buffer.from(opts.json).toString())
            : opts.body,
      };
      if (!this.options.dryRun(shown, idempotent)) throw new DryRunStop();
    }

    for (let attempt = 0; ; attempt++) {
      await this.waitForPause();
      const sentAt = Date.now();
      const outcome = await this.once(opts, url, headers, payload);
      if (outcome.kind === "ok") return outcome.response as ApiResponse<T>;
      if (outcome.kind === "status" && outcome.response.status === 429) {
        for (const listener of this.rateLimitListeners) listener(sentAt);
      }

      const last = attempt >= this.options.retries || opts.download?.canRestart?.() === false;
      if (outcome.kind === "status") {
        const { response } = outcome;
        const retry = !last && retryableStatus(idempotent ? "GET" : opts.method, response.status);
        if (!retry) {
          if (!idempotent && [500, 502, 504].includes(response.status)) {
            throw new UncertainError(opts.method, url, `the service answered HTTP ${response.status}`);
          }
          throw toApiError(response, opts.method, url, this.options.apiKey);
        }
        const hinted = retryAfterMs(response.headers["retry-after"]);
        const wait = hinted ?? backoffMs(attempt);
        if (response.status === 429) this.pauseUntil = Math.max(this.pauseUntil, Date.now() + wait);
        this.options.warn(
          `HTTP ${response.status} from ${opts.method} ${url}; retrying in ${formatWait(wait)}` +
            ` (attempt ${attempt + 2} of ${this.options.retries + 1})`,
        );
        await this.sleep(wait);
        continue;
      }

      const { error } = outcome;
      const code = errorCode(error);
      const reason = describeNetworkError(error, this.options.timeoutMs);
      const sendable = idempotent || neverSent(code);
      if (!sendable) throw new UncertainError(opts.method, url, reason, error);
      // It would only come again, as large: one download of it is one too many already.
      if (code === TOO_LARGE) {
        throw new CliError(`${opts.method} ${url}: ${reason}; stopped reading it, not retried`, {
          suggestion:
            "No answer of the service comes near this size: check that the base URL names the service itself " +
            "(`assess config get base-url`); lists can be asked for in smaller pages (--page-size) or shorter periods.",
          cause: error,
        });
      }
      if (last) {
        throw new NetworkError(
          `${opts.method} ${url}: ${reason}`,
          `Check that ${new URL(url).origin} is reachable and the base URL is right (\`assess config get base-url\`); --timeout and --retries adjust patience.`,
          error,
        );
      }
      const wait = backoffMs(attempt);
      this.options.warn(
        `${reason} on ${opts.method} ${url}; retrying in ${formatWait(wait)} (attempt ${attempt + 2} of ${this.options.retries + 1})`,
      );
      await this.sleep(wait);
    }
  }

  /**
   * Calls `listener` with the send time of each request answered 429, retried or not (bulk runs send fewer
   * requests at once then); returns the function that unsubscribes it.
   */
  onRateLimited(listener: (sentAt: number) => void): () => void {
    this.rateLimitListeners.add(listener);
    return () => this.rateLimitListeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async waitForPause(): Promise<void> {
    const wait = this.pauseUntil - Date.now();
    if (wait > 0) await this.sleep(wait);
  }

  private async once(
    opts: RequestOptions,
    startUrl: string,
    headers: Record<string, string>,
    payload: string | Uint8Array | undefined,
  ): Promise<
    | { kind: "ok"; response: ApiResponse }
    | { kind: "status"; response: ApiResponse }
    | { kind: "error"; error: unknown }
  > {
    let url = startUrl;
    let method: string = opts.method;
    let body: string | Uint8Array | Readable | undefined = opts.raw ? opts.raw.data() : payload;
    const started = Date.now();
    const { timeoutMs } = this.options;
    // One deadline for the whole attempt, connecting to the last byte of the body (undici's own timers only
    // bound the silences): a server that trickles an answer or streams one without end is cut off here.
    // (A connection still being made when it fires ends with undici's connect timeout: never sent.)
    let received: number | undefined;
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      const reason =
        received === undefined
          ? `no answer within ${timeoutMs} ms (--timeout)`
          : `the answer was still coming after ${timeoutMs} ms, the --timeout (${formatBytes(received)} so far)`;
      deadline.abort(new LimitError(DEADLINE, reason));
    }, timeoutMs);
    const stop = () => deadline.abort(opts.signal?.reason);
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener("abort", stop, { once: true });
    try {
      for (let hop = 0; ; hop++) {
        this.debug(`→ ${method} ${url}${body !== undefined ? ` (${headers["content-type"]})` : ""}`);
        received = undefined;
        const res = await request(this.dispatcher, url, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: deadline.signal,
        });
        const resHeaders = this.hideHeaders(flattenHeaders(res.headers));
        if (res.statusCode >= 300 && res.statusCode < 400 && resHeaders.location) {
          await res.body.dump();
          const next = new URL(resHeaders.location, url);
          // The key is a bearer secret: never hand it to another origin, whatever the redirect says.
          if (next.origin !== new URL(url).origin) {
            throw new ApiError(
              res.statusCode,
              [
                `The service redirected to another origin (${next.origin}); not following it with your API key`,
              ],
              {
                suggestion:
                  "Check --base-url / --skills-base-url: it should name the service's API host directly.",
                method,
                url,
              },
            );
          }
          if (hop >= MAX_REDIRECTS)
            throw new ApiError(res.statusCode, ["Too many redirects"], { method, url });
          if (
            res.statusCode === 303 ||
            ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")
          ) {
            method = "GET";
            body = undefined;
          } else if (opts.raw) {
            body = opts.raw.data();
          }
          url = next.toString();
          continue;
        }
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        let data: unknown;
        let notJson = false;
        received = 0;
        const count = (chunk: Uint8Array) => {
          received = (received ?? 0) + chunk.length;
        };
        if (ok && opts.download) {
          const write = opts.download.begin();
          await readBody(res.body, resHeaders, MAX_DOWNLOAD_BYTES, "download", (chunk) => {
            count(chunk);
            return write(chunk);
          });
          data = received;
        } else {
          // An error answer is read only so far: its status decides, and its message is in its first bytes.
          const chunks: Uint8Array[] = [];
          await readBody(
            res.body,
            resHeaders,
            ok ? MAX_ANSWER_BYTES : MAX_ERROR_BYTES,
            ok ? "answer" : "cut",
            (chunk) => {
              count(chunk);
              chunks.push(chunk);
            },
          );
          const text = Buffer.concat(chunks)
            .toString("utf8")
            .replace(/^\uFEFF/, "");
          ({ data, notJson } = parseBody(text));
          data = this.hide(data, text);
        }
        this.debug(
          `← ${res.statusCode} ${method} ${url} in ${Date.now() - started} ms (${formatBytes(received)})`,
        );
        const response: ApiResponse = { status: res.statusCode, headers: resHeaders, data };
        if (notJson) response.notJson = true;
        return ok ? { kind: "ok", response } : { kind: "status", response };
      }
    } catch (error) {
      // Redirect refusals, and a download whose bytes cannot be taken (a full disk, stdout that cannot start over).
      if (error instanceof CliError) throw error;
      this.debug(
        `✗ ${method} ${url}: ${describeNetworkError(error, timeoutMs)} after ${Date.now() - started} ms`,
      );
      return { kind: "error", error };
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", stop);
    }
  }

  /** `--debug` lines name URLs, which a same-origin redirect chooses: the key never shows in them either. */
  private debug(line: string): void {
    this.options.debug?.(this.hide(line, line));
  }

  /**
   * The key wherever it appears in an answer (a service or proxy that echoes request headers back) becomes
   * `****` and its last four characters, as `config list` shows it: so no command, format, error or `--debug`
   * line can print it. `text` is the answer as it came; one without the key (or a JSON escape that could
   * spell it) is left untouched, at the cost of one search.
   */
  private hide<T>(data: T, text: string): T {
    const key = this.options.apiKey;
    if (key.length < MIN_HIDDEN_KEY || !(text.includes(key) || text.includes("\\"))) return data;
    return hideKey(data, key, redactKey(key));
  }

  private hideHeaders(headers: Record<string, string>): Record<string, string> {
    for (const [name, value] of Object.entries(headers)) headers[name] = this.hide(value, value);
    return headers;
  }
}

/**
 * Reads a body chunk by chunk into `take`, never more than `cap` bytes. Past the cap an answer or a download
 * ends the request (TOO_LARGE; a Content-Length above it, before a byte is read); an error answer ("cut") is
 * only read that far.
 */
async function readBody(
  body: Dispatcher.ResponseData["body"],
  headers: Record<string, string>,
  cap: number,
  kind: "answer" | "download" | "cut",
  take: (chunk: Uint8Array) => void | Promise<void>,
): Promise<void> {
  // Stopping early destroys the body, which undici reports as an 'error' event: not a crash.
  body.on("error", () => undefined);
  const tooLarge = (how: string) => {
    body.destroy();
    const what = kind === "download" ? "the most assess downloads" : "the most assess reads of one answer";
    return new LimitError(TOO_LARGE, `the answer ${how} ${formatBytes(cap)}, ${what}`);
  };
  const declared = Number(headers["content-length"]);
  if (kind !== "cut" && declared > cap) {
    throw tooLarge(`announces ${formatBytes(declared)} (Content-Length), more than`);
  }
  let size = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    const room = cap - size;
    if (chunk.length > room) {
      if (kind !== "cut") throw tooLarge("went past");
      await take(chunk.subarray(0, room));
      body.destroy();
      return;
    }
    size += chunk.length;
    await take(chunk);
  }
}

/** Replaces `key` in every string of `data` (values and property names), in place; iterative, for deep JSON. */
function hideKey<T>(data: T, key: string, shown: string): T {
  const hideText = (text: string) => (text.includes(key) ? text.replaceAll(key, shown) : text);
  if (typeof data === "string") return hideText(data) as T;
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const value = node[i];
        if (typeof value === "string") node[i] = hideText(value);
        else if (value !== null && typeof value === "object") stack.push(value);
      }
    } else if (node !== null && typeof node === "object") {
      const record = node as Record<string, unknown>;
      for (const name of Object.keys(record)) {
        const value = record[name];
        const hidden = typeof value === "string" ? hideText(value) : value;
        if (name.includes(key)) {
          delete record[name];
          record[hideText(name)] = hidden;
        } else if (hidden !== value) record[name] = hidden;
        if (hidden !== null && typeof hidden === "object") stack.push(hidden);
      }
    }
  }
  return data;
}

/**
 * Bodies are JSON whatever the content type says (upsert answers JSON as text/plain, bulk invite a bare
 * `true`); text that is not JSON comes back as it is, flagged, for the reader to judge (a plain-text message
 * may be fine, an HTML login page never is).
 */
function parseBody(text: string): { data: unknown; notJson: boolean } {
  const trimmed = text.trim();
  if (trimmed === "") return { data: undefined, notJson: false };
  // JSON nested thousands deep parses, then overflows the stack of the code that walks it.
  if (nestsDeeperThan(trimmed, MAX_DEPTH)) return { data: text, notJson: true };
  try {
    return { data: JSON.parse(trimmed), notJson: false };
  } catch {
    return { data: text, notJson: true };
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) flat[key.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** Reads the three documented error shapes (and anything else) into messages and offending ids. */
export function toApiError(response: ApiResponse, method: string, url: string, apiKey?: string): ApiError {
  const { messages, ids } = readErrorBody(response.status, response.data);
  // A service or proxy that echoes the request's headers back must not get the key printed.
  const hide = (message: string) => (apiKey ? message.replaceAll(apiKey, redactKey(apiKey)) : message);
  return new ApiError(response.status, messages.map(hide), {
    ids,
    body: response.data,
    method,
    url: new URL(url).pathname,
    retryAfter: response.headers["retry-after"],
  });
}

export function readErrorBody(status: number, data: unknown): { messages: string[]; ids: number[] } {
  const messages: string[] = [];
  const ids: number[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "number") ids.push(value);
    else if (typeof value === "string") {
      if (/^\d+$/.test(value.trim()) && messages.length > 0) ids.push(Number(value));
      else if (value.trim()) messages.push(value.trim());
    } else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === "object") {
      const message = field(value, "message");
      if (typeof message === "string") collect(message);
      else Object.values(value).forEach(collect);
    }
  };
  if (isRecord(data)) {
    // `{"errors": [...]}`, `{"result": null, "errors": [...]}`, `{"statusCode": N, "message": "..."}`,
    // `{"Message": "..."}`, `{"error": "..."}`, problem details `{"title", "detail"}`: in any casing.
    const errors = field(data, "errors");
    const text = ["message", "error", "detail", "title", "errorMessage"]
      .map((name) => field(data, name))
      .find((value) => typeof value === "string" && value.trim() !== "");
    if (errors !== undefined && errors !== null) collect(errors);
    if (messages.length === 0 && text !== undefined) collect(text);
    if (messages.length === 0) {
      const inner = field(data, "error");
      if (isRecord(inner)) collect(inner);
    }
  } else if (typeof data === "string" && /^\s*</.test(data)) {
    messages.push(`The service answered HTTP ${status} with an HTML page: ${summarizeText(data)}`);
  } else if (typeof data === "string" && data.trim()) {
    // A plain-text answer is the message itself ("API key not valid or Subscription expired or not found").
    const text = data
      .trim()
      .replace(/^"(.*)"$/s, "$1")
      .replace(/\s+/g, " ");
    messages.push(text.length > 300 ? `${text.slice(0, 299)}…` : text);
  } else if (Array.isArray(data)) {
    collect(data);
  }
  if (messages.length === 0) messages.push(`The service answered HTTP ${status}`);
  return { messages, ids };
}

/** An HTML error page from a proxy becomes its title (or first words), not a wall of markup. */
function summarizeText(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ").trim();
  return JSON.stringify(plain.length > 120 ? `${plain.slice(0, 117)}...` : plain);
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const code = errorCode(error);
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "connection reset before an answer came";
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return `no answer within ${timeoutMs} ms`;
    case DEADLINE:
    case TOO_LARGE:
      return (error as Error).message;
    case "UND_ERR_ABORTED":
    case "ABORT_ERR":
      return "request aborted";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** `512 bytes`, `3.1 MiB`: sizes in messages. */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "")} MiB`;
}

function formatWait(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}
