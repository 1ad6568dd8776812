/** The retry policy: a GET is retried on any transient failure, a write only when it cannot have been processed. */

const RETRY_GET = new Set([429, 500, 502, 503, 504]);
const RETRY_WRITE = new Set([429, 503]);
/** Network errors that happen before a request reaches the service. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** `idempotent`: a GET, or a POST that only reads. */
export function retryableStatus(idempotent: boolean, status: number): boolean {
  return (idempotent ? RETRY_GET : RETRY_WRITE).has(status);
}

/** The request was certainly never delivered: even a POST may be sent again. */
export function neverSent(code: string | undefined): boolean {
  return code !== undefined && NEVER_SENT.has(code);
}

const BASE_MS = 500;
const CAP_MS = 30_000;
/** A Retry-After beyond this is not worth waiting for in a CLI; we wait this long instead. */
const RETRY_AFTER_CAP_MS = 60_000;

/** Exponential backoff with full jitter; `attempt` starts at 0. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt));
}

/** Retry-After as seconds or an HTTP date, up to `capMs`; undefined when absent or unreadable. */
export function retryAfterMs(
  header: string | undefined,
  now = Date.now(),
  capMs = RETRY_AFTER_CAP_MS,
): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? undefined : Math.min(capMs, Math.max(0, Math.round(ms)));
}
