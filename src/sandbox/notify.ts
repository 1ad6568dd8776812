/**
 * Sending test-completion notifications as the real service does: JSON POSTs to the invitation's
 * callbackURL, 5 s timeout, a failed delivery retried twice, and never an exception for an unreachable URL.
 */
import http from "node:http";
import https from "node:https";
import { attemptedOnLabel, isoNoZone } from "./dates.js";
import type { Invitation } from "./state.js";

export interface Delivery {
  url: string;
  /** The callback's HTTP status, or null when it could not be reached. */
  status: number | null;
  /** The notification that was sent. */
  body: unknown;
}

export interface TestCompletionNotification {
  TestInvitationId: number;
  CandidateEmailId: string;
  Status: string;
  TotalScore: number;
  CandidateScore: number;
  PerformanceCategory: string | null;
  ReportPDFUrl: string | null;
  AttemptedOn: string;
  AttemptedOnUtc: string;
}

/** Like the real service, the final notification says `Test Left` where the attempt list says `TestLeft`. */
const NOTIFICATION_STATUS: Record<string, string> = {
  "In Progress": "In Progress",
  Complete: "Complete",
  TestLeft: "Test Left",
  Terminated: "Terminated",
};

export function buildNotification(
  inv: Invitation,
  totalScore: number,
  reportPdfUrl: string | null,
): TestCompletionNotification {
  const attempted = new Date(inv.startedAt ?? inv.createdAt);
  const final = inv.result !== undefined && inv.status !== "In Progress";
  return {
    TestInvitationId: inv.testInvitationId,
    CandidateEmailId: inv.email,
    Status: NOTIFICATION_STATUS[inv.status] ?? inv.status,
    TotalScore: inv.result?.totalScore ?? totalScore,
    CandidateScore: final ? (inv.result?.candidateScore ?? 0) : 0,
    PerformanceCategory: final ? (inv.result?.performanceCategory ?? null) : null,
    ReportPDFUrl: final ? reportPdfUrl : null,
    AttemptedOn: attemptedOnLabel(attempted),
    AttemptedOnUtc: isoNoZone(attempted),
  };
}

export interface NotifierOptions {
  timeoutMs?: number;
  retries?: number;
  retryDelayMs?: number;
}

export class Notifier {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly inflight = new Set<http.ClientRequest>();
  private closed = false;

  constructor(opts: NotifierOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.retries = opts.retries ?? 2;
    this.retryDelayMs = opts.retryDelayMs ?? 100;
  }

  /** Delivers once plus up to `retries` retries; resolves with the last outcome and the number of attempts. */
  async send(url: string, payload: unknown): Promise<Delivery & { attempts: number }> {
    let status: number | null = null;
    let attempts = 0;
    while (attempts <= this.retries && !this.closed) {
      if (attempts > 0) await sleep(this.retryDelayMs * attempts);
      attempts++;
      status = await this.post(url, payload);
      if (status !== null && status >= 200 && status < 300) break;
    }
    return { url, status, body: payload, attempts };
  }

  /** Aborts deliveries still on the wire so closing the sandbox never waits for a slow callback. */
  close(): void {
    this.closed = true;
    for (const req of this.inflight) req.destroy();
    this.inflight.clear();
  }

  private post(url: string, payload: unknown): Promise<number | null> {
    return new Promise((resolve) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        resolve(null);
        return;
      }
      const lib = target.protocol === "https:" ? https : target.protocol === "http:" ? http : undefined;
      if (!lib) {
        resolve(null);
        return;
      }
      const data = Buffer.from(JSON.stringify(payload));
      let settled = false;
      const finish = (status: number | null) => {
        if (settled) return;
        settled = true;
        this.inflight.delete(req);
        resolve(status);
      };
      // agent:false — one connection per delivery, so nothing lingers to keep a test process alive.
      const req = lib.request(target, {
        method: "POST",
        agent: false,
        timeout: this.timeoutMs,
        headers: {
          "content-type": "application/json",
          "content-length": data.length,
          "user-agent": "assess-sandbox-notifier/1",
        },
      });
      this.inflight.add(req);
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => finish(res.statusCode ?? null));
        res.on("error", () => finish(res.statusCode ?? null));
      });
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => finish(null));
      req.on("close", () => finish(null));
      req.end(data);
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
