/**
 * A local receiver for the test-completion notification (a JSON POST when an attempt starts and ends): it
 * answers at once, then forwards and reports each one in arrival order. Bad requests are answered and
 * reported, never thrown. The queue waiting for forwards is bounded (count and bytes): when full, 503. The
 * (TestInvitationId, Status) pairs remembered to mark duplicates are bounded too: the last MAX_REMEMBERED.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Delivery, describeDestination, type Forwarder } from "../../core/forward.js";
import { webhookId } from "../../core/signing.js";
import { field, isRecord, positiveId } from "../../fields.js";

const MAX_BODY_BYTES = 1024 * 1024;
/** Slow or stalled senders are cut off instead of holding a socket forever. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Notifications waiting for --forward-to, at most: beyond either bound the receiver answers 503. */
const MAX_QUEUED = 1000;
const MAX_QUEUED_BYTES = 64 * 1024 * 1024;
const RETRY_AFTER_S = 30;
/**
 * (TestInvitationId, Status) pairs remembered to mark duplicates, at most: the least recently seen is forgotten
 * first. Each is kept as a 44-character digest (a sender chooses the Status, up to a 1 MiB body): < 10 MiB.
 */
const MAX_REMEMBERED = 100_000;

export interface ForwardOutcome {
  /** The URL, or `Slack (host)` / `Teams (host)`: their webhook URLs are credentials. */
  url: string;
  /** Null when the forward target could not be reached. */
  status: number | null;
  error?: string;
}

/** One request the receiver handled: a notification (answered 2xx) or a rejected request. */
export interface ReceivedEvent {
  receivedAt: string;
  answered: number;
  testInvitationId: number | null;
  status: string | null;
  /**
   * The notification's `AttemptedOnUtc` (`2020-10-09T13:21:53`, sent without a zone) with its `Z`, or null.
   * `AttemptedOn` (`09-Oct-2020 06:51 PM`) is the account's local time, in a zone it does not name.
   */
  attemptedAt: string | null;
  /**
   * The same (TestInvitationId, Status) arrived before, among the last MAX_REMEMBERED pairs: a retry or a
   * `callbacks resend`.
   */
  duplicate: boolean;
  notification?: Record<string, unknown>;
  forward?: ForwardOutcome;
  error?: string;
}

export interface ListenerOptions {
  host: string;
  port: number;
  /** When set, only requests to exactly this path are accepted; the rest get 404. */
  secretPath?: string;
  forwarder?: Forwarder;
  headersTimeoutMs?: number;
  /** Pairs remembered to mark duplicates (MAX_REMEMBERED by default). */
  remember?: number;
  /** Called once per handled request, in arrival order, after its forward (if any) finished. */
  onEvent(event: ReceivedEvent): void | Promise<void>;
}

export async function startListener(options: ListenerOptions) {
  const seen = recentSet(options.remember ?? MAX_REMEMBERED);
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
  const full = (bytes: number) => waiting.count >= MAX_QUEUED || waiting.bytes + bytes > MAX_QUEUED_BYTES;

  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  // Node checks these timeouts only every connectionsCheckingInterval (30 s by default).
  const checkEvery = Math.min(1000, headersTimeout);
  const server = http.createServer({ connectionsCheckingInterval: checkEvery }, (req, res) => {
    const path = new URL(req.url ?? "/", "http://listener").pathname;
    const elsewhere = options.secretPath !== undefined && !samePath(path, options.secretPath);
    if (elsewhere || req.method !== "POST") {
      req.resume();
      if (elsewhere) return reply(res, 404, { error: "not found" });
      if (req.method === "GET" || req.method === "HEAD") {
        return reply(res, 200, { listening: true, accepts: "POST test-completion notifications" });
      }
      res.setHeader("allow", "POST, GET, HEAD");
      return reject(res, 405, `method ${req.method} not allowed`);
    }
    readBody(req).then(
      (body) => {
        if (body === undefined) return reject(res, 413, `body larger than ${MAX_BODY_BYTES} bytes`);
        const parsed = parseNotification(body);
        if (parsed.error !== undefined) return reject(res, 400, parsed.error);
        if (full(body.length)) {
          res.setHeader("retry-after", String(RETRY_AFTER_S));
          return reject(
            res,
            503,
            `${waiting.count} notifications (${Math.ceil(waiting.bytes / 1024)} KiB) are waiting for their forward; try again later`,
          );
        }
        reply(res, 200, { received: true });
        const { testInvitationId, status, attemptedAt } = parsed;
        const duplicate = testInvitationId !== null && seen.saw(`${testInvitationId}\u0000${status ?? ""}`);
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
  const { port } = server.address() as AddressInfo;
  const origin = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`;
  return {
    origin,
    callbackUrl: `${origin}${options.secretPath ?? "/"}`,
    /** Stops accepting, drops open connections and waits for queued forwards and reports. */
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

/**
 * The last `size` keys seen, each kept as a digest: `saw` tells whether a key is among them and makes it the
 * most recent (a Set iterates in insertion order, so its first key is the least recently seen).
 */
function recentSet(size: number) {
  const keys = new Set<string>();
  return {
    saw(key: string): boolean {
      const digest = createHash("sha256").update(key).digest("base64");
      const seen = keys.delete(digest);
      keys.add(digest);
      if (keys.size > size) keys.delete(keys.values().next().value as string);
      return seen;
    },
  };
}

/** The whole body, or undefined when it is too large (the rest is read and dropped so the 413 arrives). */
function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on("error", rejectBody);
    req.on("close", () => {
      if (!req.complete) rejectBody(new Error("the sender closed the connection mid-body"));
    });
  });
}

/**
 * The notification's shape is not documented: a JSON object, or one in a list of one, or a form's fields
 * (`TestInvitationId=5&Status=Complete`); read the fields we key on.
 */
function parseNotification(body: Buffer) {
  const text = body.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!/^[\w.%+-]+=[^&]*(&[\w.%+-]+=[^&]*)*$/.test(text.trim()))
      return { error: `malformed JSON: ${(error as Error).message}` };
    value = Object.fromEntries(new URLSearchParams(text.trim()));
  }
  if (Array.isArray(value) && value.length === 1) value = value[0];
  if (!isRecord(value)) return { error: "expected a JSON object (the test-completion notification)" };
  const notification = value;
  // The real body is PascalCase (`TestInvitationId`, `Status`); any casing is read.
  const status = field(notification, "Status");
  return {
    notification,
    testInvitationId: positiveId(field(notification, "TestInvitationId")) ?? null,
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
  const status = field(delivery.record, "Status");
  if (forwarder.destination.kind !== "json" && typeof status === "string" && /progress/i.test(status)) {
    return undefined;
  }
  const outcome = await forwarder.tryOnce(delivery, signal);
  const url = describeDestination(forwarder.destination);
  return outcome.status === undefined
    ? { url, status: null, error: outcome.error }
    : { url, status: outcome.status };
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
