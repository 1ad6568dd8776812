/**
 * A local receiver for the test-completion notification (a JSON POST, sent when an attempt starts and again
 * when it ends): it answers the service at once, then forwards and reports each notification in arrival
 * order. Bad requests are answered and reported, never thrown: one bad sender must not stop the receiver.
 * The notifications waiting for their forward are bounded (count and bytes): when the queue is full the
 * receiver answers 503, so the service's own retries apply, and memory never grows without end.
 */
import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { field } from "../../fields.js";
import { type Delivery, describeDestination, type Forwarder } from "./forward.js";
import { webhookId } from "./signing.js";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Slow or stalled senders are cut off instead of holding a socket forever. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Notifications waiting for --forward-to, at most: beyond either bound the receiver answers 503. */
export const MAX_QUEUED = 1000;
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;
/** What a 503 asks the sender to wait before trying again. */
const RETRY_AFTER_S = 30;

export interface ForwardOutcome {
  /** The URL, or `Slack (host)` / `Teams (host)`: their webhook URLs are credentials. */
  url: string;
  /** The forward target's HTTP status, or null when it could not be reached. */
  status: number | null;
  error?: string;
}

/** One request the receiver handled: a notification (answered 2xx) or a rejected request. */
export interface ReceivedEvent {
  receivedAt: string;
  /** What the receiver answered. */
  answered: number;
  testInvitationId: number | null;
  status: string | null;
  /**
   * When the candidate attempted the test, in UTC ISO 8601: the notification's `AttemptedOnUtc`
   * (`2020-10-09T13:21:53`, sent without a zone) with its `Z`. Null when it has none; `AttemptedOn`
   * (`09-Oct-2020 06:51 PM`) is the account's local time, in a zone the notification does not name.
   */
  attemptedAt: string | null;
  /** The same (TestInvitationId, Status) arrived before: a retry or a `callbacks resend`. */
  duplicate: boolean;
  notification?: Record<string, unknown>;
  forward?: ForwardOutcome;
  /** Why a request was rejected. */
  error?: string;
}

export interface ListenerOptions {
  host: string;
  port: number;
  /** When set, only requests to exactly this path are accepted; the rest get 404. */
  secretPath?: string;
  forwarder?: Forwarder;
  maxBodyBytes?: number;
  /** Bounds of the queue of notifications waiting for their forward (defaults MAX_QUEUED, MAX_QUEUED_BYTES). */
  maxQueued?: number;
  maxQueuedBytes?: number;
  /** How long a sender may take to send its headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Called once per handled request, in arrival order, after its forward (if any) finished. */
  onEvent(event: ReceivedEvent): void | Promise<void>;
}

export interface Listener {
  /** Where it listens, e.g. `http://127.0.0.1:4020`. */
  origin: string;
  /** The URL to give the service as callbackURL. */
  callbackUrl: string;
  /** Stops accepting, drops open connections and waits for queued forwards and reports. */
  close(): Promise<void>;
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const seen = new Set<string>();
  const maxQueued = options.maxQueued ?? MAX_QUEUED;
  const maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
  // Forwards and reports run one after another so both keep the order notifications arrived in.
  let queue: Promise<void> = Promise.resolve();
  const waiting = { count: 0, bytes: 0 };
  const enqueue = (job: () => Promise<void>, bytes = 0) => {
    waiting.count++;
    waiting.bytes += bytes;
    queue = queue
      .then(job)
      .catch(() => undefined)
      .finally(() => {
        waiting.count--;
        waiting.bytes -= bytes;
      });
  };
  // Stopping cuts the forwards short: a hanging target must not hold the receiver's exit.
  const stopping = new AbortController();
  const full = (bytes: number) => waiting.count >= maxQueued || waiting.bytes + bytes > maxQueuedBytes;

  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  // Node checks these timeouts only every connectionsCheckingInterval (30 s by default): a slow-loris sender
  // could hold its socket up to 30 s longer than headersTimeout says.
  const checkEvery = Math.min(1000, headersTimeout);
  const server = http.createServer({ connectionsCheckingInterval: checkEvery }, (req, res) => {
    const path = new URL(req.url ?? "/", "http://listener").pathname;
    if (options.secretPath !== undefined && !samePath(path, options.secretPath)) {
      req.resume();
      reply(res, 404, { error: "not found" });
      return;
    }
    if (req.method === "GET" || req.method === "HEAD") {
      req.resume();
      reply(res, 200, { listening: true, accepts: "POST test-completion notifications" });
      return;
    }
    if (req.method !== "POST") {
      req.resume();
      res.setHeader("allow", "POST, GET, HEAD");
      reject(res, 405, `method ${req.method} not allowed`);
      return;
    }
    readBody(req, maxBody).then(
      (body) => {
        if (body === undefined) {
          reject(res, 413, `body larger than ${maxBody} bytes`);
          return;
        }
        const parsed = parseNotification(body);
        if ("error" in parsed) {
          reject(res, 400, parsed.error);
          return;
        }
        if (full(body.length)) {
          res.setHeader("retry-after", String(RETRY_AFTER_S));
          reject(
            res,
            503,
            `${waiting.count} notifications (${Math.ceil(waiting.bytes / 1024)} KiB) are waiting for their forward; try again later`,
          );
          return;
        }
        reply(res, 200, { received: true });
        const { testInvitationId, status, attemptedAt } = parsed;
        const key = testInvitationId === null ? undefined : `${testInvitationId}\u0000${status ?? ""}`;
        const duplicate = key !== undefined && seen.has(key);
        if (key !== undefined) seen.add(key);
        const receivedAt = new Date().toISOString();
        const contentType = req.headers["content-type"] ?? "application/json";
        // Only the body waits in the queue (what its bound counts): it is read again when its turn comes.
        enqueue(async () => {
          const { notification } = parseNotification(body) as { notification: Record<string, unknown> };
          const forward = options.forwarder
            ? await forwardBody(options.forwarder, stopping.signal, {
                body,
                contentType,
                record: notification,
                webhookId: webhookId(testInvitationId ?? field(notification, "TestInvitationId"), status),
              })
            : undefined;
          await options.onEvent({
            receivedAt,
            answered: 200,
            testInvitationId,
            status,
            attemptedAt,
            duplicate,
            notification,
            forward,
          });
        }, body.length);
      },
      // The sender went away mid-body: nothing to answer, nothing received.
      () => undefined,
    );
  });
  server.headersTimeout = headersTimeout;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;

  function reject(res: http.ServerResponse, code: number, error: string): void {
    reply(res, code, { error });
    const event: ReceivedEvent = {
      receivedAt: new Date().toISOString(),
      answered: code,
      testInvitationId: null,
      status: null,
      attemptedAt: null,
      duplicate: false,
      error,
    };
    // A full queue is reported at once: a flood of refusals must not grow the queue it was refused by.
    if (full(0)) void Promise.resolve(options.onEvent(event)).catch(() => undefined);
    else enqueue(async () => options.onEvent(event));
  }

  await new Promise<void>((resolve, rejectListen) => {
    server.once("error", rejectListen);
    server.listen(options.port, options.host, () => {
      server.off("error", rejectListen);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${urlHost(options.host)}:${address.port}`;
  return {
    origin,
    callbackUrl: `${origin}${options.secretPath ?? "/"}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      stopping.abort();
      await queue;
    },
  };
}

/** The whole body, or undefined when it exceeds the limit (the rest is read and dropped so the 413 arrives). */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers["content-length"] ?? 0) > limit;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on("error", rejectBody);
    req.on("close", () => {
      if (!req.complete) rejectBody(new Error("the sender closed the connection mid-body"));
    });
  });
}

type Parsed =
  | (Pick<ReceivedEvent, "testInvitationId" | "status" | "attemptedAt"> & {
      notification: Record<string, unknown>;
    })
  | { error: string };

/** The notification's shape is documented loosely: require a JSON object, read the two fields we key on. */
export function parseNotification(body: Buffer): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (error) {
    return { error: `malformed JSON: ${(error as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "expected a JSON object (the test-completion notification)" };
  }
  const notification = value as Record<string, unknown>;
  // The real body is PascalCase (`TestInvitationId`, `Status`); any casing is read.
  const rawId = field(notification, "TestInvitationId");
  const id = typeof rawId === "string" && /^\d+$/.test(rawId) ? Number(rawId) : rawId;
  const status = field(notification, "Status");
  return {
    notification,
    testInvitationId: typeof id === "number" && Number.isSafeInteger(id) ? id : null,
    status: typeof status === "string" ? status : null,
    attemptedAt: utcTime(field(notification, "AttemptedOnUtc")),
  };
}

/** `2020-10-09T13:21:53` (UTC, no zone) → `2020-10-09T13:21:53Z`; a value with a zone is kept as it is. */
function utcTime(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  return Number.isNaN(Date.parse(zoned)) ? null : zoned;
}

/** Slack and Teams get a message for a final notification only: "In Progress" is not news to people. */
async function forwardBody(
  forwarder: Forwarder,
  signal: AbortSignal,
  delivery: Delivery,
): Promise<ForwardOutcome | undefined> {
  const url = describeDestination(forwarder.destination);
  const status = field(delivery.record, "Status");
  if (forwarder.destination.kind !== "json" && typeof status === "string" && /progress/i.test(status)) {
    return undefined;
  }
  const outcome = await forwarder.tryOnce(delivery, signal);
  if (outcome.status !== undefined) return { url, status: outcome.status };
  return { url, status: null, error: outcome.error };
}

function reply(res: http.ServerResponse, code: number, body: unknown): void {
  const data = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

/** Constant-time, so the secret path cannot be guessed a character at a time. */
function samePath(path: string, secret: string): boolean {
  const a = Buffer.from(path);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
