/**
 * Where `attempts watch --forward` and `callbacks listen --forward-to` send what they get: a plain URL (the
 * JSON, signed when a signing secret is set), `slack:<incoming webhook URL>` or `teams:<workflow URL>` (a
 * message people read, ./forward-messages.ts). One deadline per try covers connecting, headers and the whole
 * answer.
 */
import { inspect } from "node:util";
import { retryAfterMs } from "../api/retry.js";
import { Agent, type Dispatcher, request } from "../api/undici.js";
import { formatDuration } from "../parse/dates.js";
import { httpUrl } from "../parse/flags.js";
import { redactUrlParts } from "../redact.js";
import { VERSION } from "../version.js";
import { slackMessage, teamsMessage } from "./forward-messages.js";
import type { Signer } from "./signing.js";

/** What is read of a receiver's answer: enough to see it ended; the rest is dropped. */
const ANSWER_BYTES = 64 * 1024;

export interface Destination {
  kind: "json" | "slack" | "teams";
  url: string;
}

/** `slack:https://…`, `teams:https://…` or an http(s) URL. */
export function parseDestination(text: string, flag: string): Destination {
  const match = /^(slack|teams):(.*)$/is.exec(text.trim());
  if (!match) return { kind: "json", url: httpUrl(text, flag) };
  return { kind: match[1]!.toLowerCase() as Destination["kind"], url: httpUrl(match[2]!.trim(), flag) };
}

/**
 * How messages, dead letters and the state name a destination: a Slack or Teams webhook URL is a credential,
 * so only its host shows; a plain URL shows without its user info and query (`https://host/path?…`).
 */
export function describeDestination(destination: Destination): string {
  if (destination.kind === "json") return redactUrlParts(destination.url);
  const { host } = new URL(destination.url);
  return `${destination.kind === "slack" ? "Slack" : "Teams"} (${host})`;
}

/** What one forward carries: the body for a plain URL, and the record (any casing) messages are made of. */
export interface Delivery {
  body: string | Buffer;
  contentType: string;
  record: Record<string, unknown>;
  /** Stable per attempt (and status), so a receiver can drop a repeat. */
  webhookId: string;
}

export interface TryOutcome {
  status?: number;
  /** Why the try failed: `HTTP 503`, `ECONNREFUSED`, `no whole answer within 10s`. */
  error?: string;
  retryAfterMs?: number;
}

/** Sends to one destination over a connection pool of its own (never with the API key); prints redacted. */
export class Forwarder {
  private readonly agent: Dispatcher;

  constructor(
    readonly destination: Destination,
    private readonly signer: Signer | undefined,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({ connect: { timeout: timeoutMs } });
  }

  /** One try: 2xx is delivered, anything else (or no whole answer by the deadline) is a failure. */
  async tryOnce(delivery: Delivery, signal: AbortSignal): Promise<TryOutcome> {
    const { url, kind } = this.destination;
    const headers: Record<string, string> = {
      "user-agent": `assess/${VERSION}`,
      "content-type": "application/json",
    };
    let body = delivery.body;
    if (kind === "json") {
      headers["content-type"] = delivery.contentType;
      if (this.signer) Object.assign(headers, this.signer.headers(delivery.webhookId, body));
    } else {
      body = JSON.stringify(kind === "slack" ? slackMessage(delivery.record) : teamsMessage(delivery.record));
    }
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await request(this.agent, url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.any([deadline, signal]),
      });
      // Read to its end (or ANSWER_BYTES) under the deadline: a trickled answer is a failed try.
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > ANSWER_BYTES) {
          res.body.destroy();
          break;
        }
      }
      if (res.statusCode >= 200 && res.statusCode < 300) return { status: res.statusCode };
      const header = res.headers["retry-after"];
      return {
        status: res.statusCode,
        error: `HTTP ${res.statusCode}`,
        retryAfterMs: retryAfterMs(Array.isArray(header) ? header[0] : header),
      };
    } catch (error) {
      if (deadline.aborted) return { error: `no whole answer within ${formatDuration(this.timeoutMs)}` };
      if (signal.aborted) return { error: "interrupted" };
      return { error: (error as { code?: string }).code ?? (error as Error).message };
    }
  }

  get signed(): boolean {
    return this.signer !== undefined;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  toJSON(): unknown {
    return { destination: describeDestination(this.destination), signed: this.signed };
  }

  [inspect.custom](): string {
    return `Forwarder ${JSON.stringify(this.toJSON())}`;
  }
}

/** Whether a failed try is worth another: no answer, 408, 425, 429 or 5xx. */
export function retryable({ status }: TryOutcome): boolean {
  return status === undefined || status === 408 || status === 425 || status === 429 || status >= 500;
}
