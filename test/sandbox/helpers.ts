/** Shared helpers of the sandbox tests: real HTTP with fetch against a sandbox on an ephemeral port. */
import { afterAll, beforeAll } from "vitest";
import { SANDBOX_KEYS, type Sandbox, type SandboxOptions } from "../../src/sandbox/index.js";
import { startTestSandbox } from "../helpers/cli.js";

export const ACME = SANDBOX_KEYS.acme;
export const GLOBEX = SANDBOX_KEYS.globex;
/** A fixed clock keeps the seeded data (and so the assertions) identical on every run. */
export const NOW = new Date("2025-06-15T12:00:00Z");

export function start(opts: SandboxOptions = {}): Promise<Sandbox> {
  return startTestSandbox({ now: () => NOW, ...opts });
}

/**
 * A sandbox for the whole file, started before its first test and closed after its last, and its clients. `sb`
 * stands for the sandbox from the start (its fields are read from the running one: use them inside tests and hooks).
 */
export function useSandbox(opts: SandboxOptions = {}): { sb: Sandbox; c: ReturnType<typeof clients> } {
  let started: Sandbox | undefined;
  const live = (): Sandbox => {
    if (!started) throw new Error("the sandbox is started before the file's first test");
    return started;
  };
  const sb: Sandbox = {
    get url() {
      return live().url;
    },
    get skillsUrl() {
      return live().skillsUrl;
    },
    get port() {
      return live().port;
    },
    get requests() {
      return live().requests;
    },
    get faults() {
      return live().faults;
    },
    get state() {
      return live().state;
    },
    completeAttempt: (id, status) => live().completeAttempt(id, status),
    close: () => live().close(),
  };
  beforeAll(async () => {
    started = await start(opts);
  });
  afterAll(() => started?.close());
  return { sb, c: clients(sb) };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests poke into loosely shaped JSON answers
  json: any;
}

export interface CallOptions {
  body?: unknown;
  /** null sends no key. */
  key?: string | null;
  headers?: Record<string, string>;
  rawBody?: RequestInit["body"];
}

export async function call(
  base: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== null) headers["x-api-key"] = opts.key ?? ACME;
  let body: RequestInit["body"] | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Bound to one sandbox's assessment and skills base URLs. */
export function clients(sb: Sandbox) {
  return {
    api: (method: string, path: string, opts?: CallOptions) => call(sb.url, method, path, opts),
    skills: (method: string, path: string, opts?: CallOptions) => call(sb.skillsUrl, method, path, opts),
  };
}

export function candidates(n: number, domain = "bulk.example") {
  return Array.from({ length: n }, (_, i) => ({ email: `cand${i}@${domain}`, name: `Candidate ${i}` }));
}
