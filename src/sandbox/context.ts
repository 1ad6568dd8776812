/** What a route handler receives and returns, and the lookups every route shares (test/invitation ownership). */
import type { IncomingHttpHeaders } from "node:http";
import { MSG, statusError } from "./errors.js";
import type { AccountId } from "./keys.js";
import type { MultipartPart } from "./multipart.js";
import type { Notifier } from "./notify.js";
import type { Employee, Invitation, Store, Test } from "./state.js";
import type { Shapes } from "./types.js";

export interface Reply {
  status: number;
  /** Object → JSON; string → text (contentType defaults to text/plain); Buffer → bytes. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Sandbox-wide services the routes use. */
export interface SandboxEnv {
  store: Store;
  now: () => Date;
  /** Assessment base URL including its prefix, for links in answers (report PDF URLs). */
  assessUrl: () => string;
  notifier: Notifier;
  /** Whose answer shapes to follow where they differ (SandboxOptions.shapes). */
  shapes: Shapes;
}

export interface RouteContext {
  env: SandboxEnv;
  store: Store;
  now: Date;
  account: AccountId;
  method: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The body parsed as JSON (415 unless the content type is JSON, 400 when it does not parse); undefined when empty. */
  json(): unknown;
  /** The multipart/form-data parts (415 when the body is not multipart, 400 when malformed). */
  multipart(): MultipartPart[];
}

export type Handler = (ctx: RouteContext) => Reply | Promise<Reply>;

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

export function idParam(ctx: RouteContext, name: string): number {
  // The router admits only digit strings for parameters, so this cannot be NaN.
  return Number(ctx.params[name]);
}

/** The account's test, or 404 (nobody's) / 403 (another account's) — on every route that carries a testId. */
export function ownedTest(ctx: RouteContext, testId: number): Test {
  const test = ctx.store.test(testId);
  if (!test) throw statusError(404, MSG.testNotFound);
  if (test.accountId !== ctx.account) throw statusError(403, MSG.forbidden);
  return test;
}

/** Another account's invitation is reported as not found, so ids of other accounts cannot be probed. */
export function ownedInvitation(ctx: RouteContext, id: number): Invitation {
  const inv = ctx.store.invitation(id);
  if (!inv || inv.accountId !== ctx.account) throw statusError(404, MSG.invitationNotFound);
  return ctx.store.refreshExpiry(inv, ctx.now);
}

export function ownedEmployee(ctx: RouteContext, id: number): Employee {
  const emp = ctx.store.employee(id);
  if (!emp || emp.accountId !== ctx.account) throw statusError(404, MSG.employeeNotFound);
  return emp;
}

/** A query integer: absent → fallback, otherwise it must be a plain integer (else NaN, for the caller's 400). */
export function queryInt(ctx: RouteContext, name: string, fallback: number): number {
  const raw = ctx.query.get(name);
  if (raw === null || raw.trim() === "") return fallback;
  return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
}
