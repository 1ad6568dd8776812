import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import {
  ApiError,
  AuthError,
  CliError,
  DryRunStop,
  InterruptedError,
  NetworkError,
  UncertainError,
} from "../errors.js";
import { field, isRecord } from "../fields.js";
import { formatBytes } from "../files.js";
import { redactKey, showAs, withHiddenKey } from "../redact.js";
import { clip, MAX_DEPTH, nestsDeeperThan } from "./read.js";
import { backoffMs, neverSent, retryAfterMs, retryableStatus } from "./retry.js";
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
  /** `--debug` lines; the key never reaches them. */
  debug?: (line: string) => void;
  /** Retry waits, and writes whose answer could not be read (api/endpoints.ts): said with or without `--debug`. */
  warn: (line: string) => void;
  /** `--dry-run`: sees every request and says whether to send it (a planning read); one not sent ends the command. */
  dryRun?: (request: DryRunRequest, readOnly: boolean) => boolean;
}

export interface DryRunRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface RequestOptions {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  api?: ApiName;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A JSON body already serialized (a bulk request joined from its items' bytes: api/json.ts). */
  json?: string | Uint8Array;
  /** A body that is not JSON (multipart upload); `data` is called again for each attempt. */
  raw?: { contentType: string; data: () => Buffer | Readable; describe: unknown };
  /** The answer is bytes (a PDF), written to `download` as they arrive. */
  download?: Download;
  /** A POST that only reads (the attempt listing): retried and replayed like a GET. */
  safe?: boolean;
  signal?: AbortSignal;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** The JSON body; the text when it is not JSON (`notJson`); with `download`, its size in bytes. */
  data: unknown;
  notJson?: boolean;
}

/**
 * Where a downloaded answer's bytes go (`reports pdf`): `begin` is called when a 2xx body starts, and again
 * when a retry starts it over; its function receives the bytes in order. A CliError thrown ends the request.
 */
export interface Download {
  begin(): (chunk: Uint8Array) => void | Promise<void>;
  /** False when the download cannot start over (bytes already gone to stdout): a failure is then final. */
  canRestart?(): boolean;
}

/**
 * The most read of a body, by what it is: an answer (far above any of the service's, far below what would
 * hurt; exceeding it is not retried), a download (streamed to disk, never held whole), an error answer ("cut":
 * read this far, its status is what counts).
 */
const MAX_BYTES = { answer: 32 * 1024 * 1024, download: 256 * 1024 * 1024, cut: 1024 * 1024 };
/** Shorter keys would match ordinary words and ids in answers. */
const MIN_HIDDEN_KEY = 8;

/** The attempt's deadline (`--timeout`) or the cap on an answer's size was reached. */
class LimitError extends Error {
  constructor(
    readonly code: "ASSESS_DEADLINE" | "ASSESS_TOO_LARGE",
    message: string,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 3;
const KEY_HEADER = "x-api-key";

/** The one HTTP client for both base URLs: sends the key, applies timeouts and retries, types every failure. */
export class Transport {
  readonly options: ClientOptions;
  private readonly dispatcher: Dispatcher;
  /** A 429 slows every concurrent worker down, not only the one that got it. */
  private pauseUntil = 0;
  private readonly rateLimitListeners = new Set<(sentAt: number) => void>();
  /**
   * Retries by cause (a failure and the host): the waits of the first request to meet it are said, each; those
   * of other requests meeting it too (a refused port, concurrent chunks) are counted and summed up at close.
   */
  private readonly retriesByCause = new Map<string, { teller: object; untold: number }>();

  constructor(options: ClientOptions) {
    // undici would refuse every request as if the network failed (and a POST as "maybe processed").
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
      throw new AuthError(
        "The API key cannot be sent in an HTTP header: it holds a space, a line break or a non-ASCII character",
        { suggestion: "Copy the key again, then run `assess auth login` or set ASSESS_API_KEY." },
      );
    }
    this.options = withHiddenKey(options);
    showAs(this, () => ({ options: this.options }));
    this.dispatcher = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: options.timeoutMs } });
  }

  url(api: ApiName, path: string, query?: RequestOptions["query"]): string {
    return joinUrl(api === "skills" ? this.options.skillsBaseUrl : this.options.baseUrl, path, query);
  }

  async request(opts: RequestOptions): Promise<ApiResponse> {
    const url = this.url(opts.api ?? "assess", opts.path, opts.query);
    const headers: Record<string, string> = {
      [KEY_HEADER]: this.options.apiKey,
      accept: opts.download ? "application/pdf, */*" : "application/json, text/plain, */*",
      "user-agent": this.options.userAgent,
    };
    const payload = opts.json ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined);
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (opts.raw) headers["content-type"] = opts.raw.contentType;

    const idempotent = opts.safe === true || opts.method === "GET";
    if (this.options.dryRun) {
      const shown = {
        method: opts.method,
        url,
        headers: { ...headers, [KEY_HEADER]: redactKey(this.options.apiKey) },
        body: opts.raw ? opts.raw.describe : payload && JSON.parse(Buffer.from(payload).toString()),
      };
      if (!this.options.dryRun(shown, idempotent)) throw new DryRunStop();
    }

    /** This request, as retriesByCause knows it. */
    const thisRequest = {};
    for (let attempt = 0; ; attempt++) {
      const pause = this.pauseUntil - Date.now();
      if (pause > 0) await pauseFor(pause, opts.signal);
      const sentAt = Date.now();
      const outcome = await this.once(opts, url, headers, payload);
      if ("response" in outcome && outcome.response.status < 300) return outcome.response;
      // Stopped by its signal: a read is not tried again (a write goes on to say it may have been processed).
      if (idempotent && opts.signal?.aborted) throw new InterruptedError();
      const last = attempt >= this.options.retries || opts.download?.canRestart?.() === false;
      let failure: string;
      let cause: string;
      let wait: number;
      if ("response" in outcome) {
        const { response } = outcome;
        if (response.status === 429) for (const listener of this.rateLimitListeners) listener(sentAt);
        if (last || !retryableStatus(idempotent, response.status)) {
          if (!idempotent && [500, 502, 504].includes(response.status)) {
            throw new UncertainError(opts.method, url, `the service answered HTTP ${response.status}`);
          }
          throw toApiError(response, opts.method, url, this.options.apiKey);
        }
        wait = retryAfterMs(response.headers["retry-after"]) ?? backoffMs(attempt);
        if (response.status === 429) this.pauseUntil = Math.max(this.pauseUntil, Date.now() + wait);
        failure = `HTTP ${response.status} from ${opts.method} ${url}`;
        cause = `HTTP ${response.status} from ${new URL(url).host}`;
      } else {
        const { error } = outcome;
        const code = errorCode(error);
        const reason = describeNetworkError(error, this.options.timeoutMs);
        if (!idempotent && !neverSent(code)) throw new UncertainError(opts.method, url, reason, error);
        // It would only come again, as large.
        if (code === "ASSESS_TOO_LARGE") {
          throw new CliError(`${opts.method} ${url}: ${reason}; stopped reading it, not retried`, {
            suggestion:
              "No answer of the service comes near this size: check that the base URL names the service itself " +
              "(`assess config list` shows the one in use); lists can be asked for in smaller pages (--page-size) or shorter periods.",
            cause: error,
          });
        }
        if (last) {
          throw new NetworkError(
            `${opts.method} ${url}: ${reason}`,
            `Check that ${new URL(url).origin} is reachable and the base URL is right (\`assess config list\` shows the one in use and where it comes from); --timeout and --retries adjust patience.`,
            error,
          );
        }
        wait = backoffMs(attempt);
        failure = `${reason} on ${opts.method} ${url}`;
        cause = `${reason} (${new URL(url).host})`;
      }
      const next = `attempt ${attempt + 2} of ${this.options.retries + 1}`;
      const shown = wait >= 1000 ? `${(wait / 1000).toFixed(1)} s` : `${wait} ms`;
      const told = this.retriesByCause.get(cause) ?? { teller: thisRequest, untold: 0 };
      this.retriesByCause.set(cause, told);
      if (told.teller === thisRequest) this.options.warn(`${failure}; retrying in ${shown} (${next})`);
      else told.untold++;
      await pauseFor(wait, opts.signal);
    }
  }

  /** Calls `listener` with the send time of each request answered 429; returns its unsubscribe. */
  onRateLimited(listener: (sentAt: number) => void): () => void {
    this.rateLimitListeners.add(listener);
    return () => this.rateLimitListeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const [cause, { untold }] of this.retriesByCause) {
      if (untold > 0)
        this.options.warn(
          `${untold} more ${untold === 1 ? "retry" : "retries"} of other requests after ${cause}`,
        );
    }
    this.retriesByCause.clear();
    await this.dispatcher.close();
  }

  /** One attempt, redirects followed: an answer of any status, or the error that stopped it. */
  private async once(
    opts: RequestOptions,
    startUrl: string,
    headers: Record<string, string>,
    payload: string | Uint8Array | undefined,
  ): Promise<{ response: ApiResponse } | { error: unknown }> {
    let url = startUrl;
    let method: string = opts.method;
    let body: string | Uint8Array | Readable | undefined = opts.raw ? opts.raw.data() : payload;
    const started = Date.now();
    const { timeoutMs } = this.options;
    // One deadline for the whole attempt, to the last byte of the body (undici's timers only bound silences).
    let received: number | undefined;
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      const reason =
        received === undefined
          ? `no answer within ${timeoutMs} ms (--timeout)`
          : `the answer was still coming after ${timeoutMs} ms, the --timeout (${formatBytes(received)} so far)`;
      deadline.abort(new LimitError("ASSESS_DEADLINE", reason));
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
        const resHeaders = this.headersOf(res.headers);
        const status = res.statusCode;
        if (status >= 300 && status < 400 && resHeaders.location) {
          await res.body.dump();
          const next = new URL(resHeaders.location, url);
          // The key is a bearer secret: never hand it to another origin.
          if (next.origin !== new URL(url).origin) {
            const refusal = `The service redirected to another origin (${next.origin}); not following it with your API key`;
            throw new ApiError(status, [refusal], {
              suggestion:
                "Check --base-url / --skills-base-url: it should name the service's API host directly.",
              method,
              url,
            });
          }
          if (hop >= MAX_REDIRECTS) throw new ApiError(status, ["Too many redirects"], { method, url });
          if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          } else if (opts.raw) {
            body = opts.raw.data();
          }
          url = next.toString();
          continue;
        }
        const ok = status >= 200 && status < 300;
        // A JSON answer where a file was asked for (a link to it, or its bytes in base64) is read as an answer.
        const json = /\bjson\b/i.test(resHeaders["content-type"] ?? "");
        const download = ok && !json ? opts.download : undefined;
        const chunks: Uint8Array[] = [];
        const write = download ? download.begin() : (chunk: Uint8Array) => void chunks.push(chunk);
        const kind = download ? "download" : ok ? "answer" : "cut";
        received = 0;
        await readBody(res.body, resHeaders, kind, (chunk) => {
          received = (received ?? 0) + chunk.length;
          return write(chunk);
        });
        const response: ApiResponse = { status, headers: resHeaders, data: received };
        if (!download) {
          const text = Buffer.concat(chunks)
            .toString("utf8")
            .replace(/^\uFEFF/, "");
          const { data, notJson } = parseBody(text);
          response.data = this.hide(data, text);
          if (notJson) response.notJson = true;
        }
        this.debug(`← ${status} ${method} ${url} in ${Date.now() - started} ms (${formatBytes(received)})`);
        return { response };
      }
    } catch (error) {
      // Redirect refusals, and a download whose bytes cannot be taken (a full disk).
      if (error instanceof CliError) throw error;
      this.debug(
        `✗ ${method} ${url}: ${describeNetworkError(error, timeoutMs)} after ${Date.now() - started} ms`,
      );
      return { error };
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", stop);
    }
  }

  /** `--debug` lines name URLs, which a same-origin redirect chooses. */
  private debug(line: string): void {
    this.options.debug?.(this.hide(line, line));
  }

  /**
   * The key wherever an answer holds it (a proxy echoing request headers) becomes `****` and its last four
   * characters. `text` is the answer as it came: one without the key (or a JSON escape) is left untouched.
   */
  private hide<T>(data: T, text: string): T {
    const key = this.options.apiKey;
    if (key.length < MIN_HIDDEN_KEY || !(text.includes(key) || text.includes("\\"))) return data;
    const shown = redactKey(key);
    const hideText = (value: string) => (value.includes(key) ? value.replaceAll(key, shown) : value);
    if (typeof data === "string") return hideText(data) as T;
    // Every string of `data`, values and property names, in place; iterative, for deep JSON.
    const stack: unknown[] = [data];
    while (stack.length > 0) {
      const node = stack.pop();
      if (node === null || typeof node !== "object") continue;
      const record = node as Record<string, unknown>;
      for (const name of Object.keys(record)) {
        const value = record[name];
        const hidden = typeof value === "string" ? hideText(value) : value;
        if (!Array.isArray(node) && name.includes(key)) {
          delete record[name];
          record[hideText(name)] = hidden;
        } else if (hidden !== value) record[name] = hidden;
        if (hidden !== null && typeof hidden === "object") stack.push(hidden);
      }
    }
    return data;
  }

  /** An answer's headers: names lowercased, repeated ones joined, the key hidden in their values. */
  private headersOf(raw: Record<string, string | string[] | undefined>): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw)) {
      const text = Array.isArray(value) ? value.join(", ") : value;
      if (text !== undefined) headers[name.toLowerCase()] = this.hide(text, text);
    }
    return headers;
  }
}

/** Waits `ms` before the next attempt; `signal` ends the wait, and the request, at once. */
async function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw new InterruptedError();
  }
}

/**
 * Reads a body into `take`, never more than its kind's MAX_BYTES: past it an answer or a download ends the
 * request (ASSESS_TOO_LARGE, also on a Content-Length above it); an error answer ("cut") is only read that far.
 */
async function readBody(
  body: Dispatcher.ResponseData["body"],
  headers: Record<string, string>,
  kind: keyof typeof MAX_BYTES,
  take: (chunk: Uint8Array) => void | Promise<void>,
): Promise<void> {
  const cap = MAX_BYTES[kind];
  // Stopping early destroys the body, which undici reports as an 'error' event: not a crash.
  body.on("error", () => undefined);
  const tooLarge = (how: string) => {
    body.destroy();
    const what = kind === "download" ? "the most assess downloads" : "the most assess reads of one answer";
    return new LimitError("ASSESS_TOO_LARGE", `the answer ${how} ${formatBytes(cap)}, ${what}`);
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

/**
 * Bodies are JSON whatever the content type says (upsert answers text/plain, bulk invite a bare `true`);
 * other text comes back as it is, flagged, for the reader to judge.
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

function toApiError({ status, data, headers }: ApiResponse, method: string, url: string, apiKey: string) {
  const { messages, ids } = readErrorBody(status, data);
  const shown = messages.map((message) => message.replaceAll(apiKey, redactKey(apiKey)));
  const where = { method, url: new URL(url).pathname, retryAfter: headers["retry-after"] };
  return new ApiError(status, shown, { ids, body: data, ...where });
}

/** Reads the documented error shapes (and anything else) into messages and offending ids. */
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
    // `{errors}`, `{result: null, errors}`, `{statusCode, message}`, `{Message}`, `{error}`, `{title, detail}`.
    const errors = field(data, "errors");
    const text = ["message", "error", "detail", "title", "errorMessage"]
      .map((name) => field(data, name))
      .find((value) => typeof value === "string" && value.trim() !== "");
    if (errors !== undefined && errors !== null) collect(errors);
    if (messages.length === 0 && text !== undefined) collect(text);
    const inner = field(data, "error");
    if (messages.length === 0 && isRecord(inner)) collect(inner);
  } else if (typeof data === "string" && /^\s*</.test(data)) {
    messages.push(`The service answered HTTP ${status} with an HTML page: ${summarizeText(data)}`);
  } else if (typeof data === "string" && data.trim()) {
    // A plain-text answer is the message itself ("API key not valid or Subscription expired or not found").
    const text = data.trim().replace(/^"(.*)"$/s, "$1");
    messages.push(clip(text.replace(/\s+/g, " "), 300));
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

const REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ECONNRESET: "connection reset before an answer came",
  UND_ERR_SOCKET: "connection reset before an answer came",
  UND_ERR_ABORTED: "request aborted",
  ABORT_ERR: "request aborted",
};
const TIMEOUTS = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const code = errorCode(error) ?? "";
  if (Object.hasOwn(REASONS, code)) return REASONS[code]!;
  if (TIMEOUTS.has(code)) return `no answer within ${timeoutMs} ms`;
  return error instanceof Error ? error.message : String(error);
}
