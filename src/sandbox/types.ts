/** The public types of the sandbox (others code against these names: keep them stable). */

import type { FinalStatus } from "../spec/final-statuses.js";
import type { SandboxState } from "./state.js";

export interface SandboxOptions {
  /** 0 (default) = ephemeral. */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** Loaded on start if it exists; saved (temp file + rename) after each mutation (debounced ≤100 ms) and on close. */
  stateFile?: string;
  /** Path prefix of the assessment API, e.g. "/api" → POST /api/v3/tests/1001/invite. Default "". */
  assessPrefix?: string;
  /** Path prefix of the employee-skills API, e.g. "/skills" → GET /skills/employees. Default "". */
  skillsPrefix?: string;
  /** Added to every API answer. */
  latencyMs?: number;
  /** Default true; benchmarks turn it off so a million rows don't fill memory. */
  recordBodies?: boolean;
  /** Clock, default real time; seeding uses it. */
  now?: () => Date;
  /** One line per request (method path status ms); the key is never logged. */
  log?: (line: string) => void;
  /**
   * "real" (default): where the real service's documented answers (fixtures/real/) differ from the literal
   * reading of its specification, answer like the real service: the attempt listing's
   * `testStatus: "Completed"`, settings grouped (`testSettings`, `questionSettings`...), the ids of a
   * process-callbacks 401 as strings.
   * "api-md": the specification's literal shapes (`teststatus: "Complete"`, flat settings, numeric ids).
   */
  shapes?: Shapes;
}

export type Shapes = "real" | "api-md";

export interface RecordedRequest {
  seq: number;
  method: string;
  /** Without prefix, without query. */
  path: string;
  rawUrl: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON, or the text for non-JSON, or {multipart:{fields, files:[{name, filename, contentType, size, sha256}]}}. */
  body: unknown;
  /** The answer's status; 0 when no answer was sent (reset-before, hang). A lost-after keeps the status it computed. */
  status: number;
  api: "assess" | "skills" | "control";
}

export type FaultKind = "status" | "reset-before" | "lost-after" | "latency" | "hang";

export interface FaultRule {
  /** e.g. "POST"; omitted = any. */
  method?: string;
  // Glob on the un-prefixed path: "*" matches one segment, "**" any: "/v3/tests/*/invite/bulk".
  path?: string;
  kind: FaultKind;
  /** For kind "status". */
  status?: number;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** For kind "latency". */
  delayMs?: number;
  /** How many matching requests it applies to (default 1; Infinity allowed). */
  times?: number;
  /** Let this many matching requests through first (default 0). */
  skip?: number;
}

export interface CompletionDelivery {
  url: string;
  status: number | null;
  body: unknown;
}

export interface Sandbox {
  /** Assessment base URL including assessPrefix, e.g. "http://127.0.0.1:43123/api". */
  url: string;
  /** e.g. "http://127.0.0.1:43123/skills". */
  skillsUrl: string;
  port: number;
  /** API requests only (not control ones). */
  requests: RecordedRequest[];
  faults: { add(rule: FaultRule): void; clear(): void };
  /** Sends "In Progress" then the final notification to the invitation's callbackURL. */
  completeAttempt(
    testInvitationId: number,
    status?: FinalStatus,
  ): Promise<{ delivered: CompletionDelivery[] }>;
  /** The live store, for assertions in tests. */
  state: SandboxState;
  close(): Promise<void>;
}
