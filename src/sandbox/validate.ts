/** Field checks shared by the routes. They throw ApiError (400) with the service's exact messages (MSG). */
import { badRequest, MSG } from "./errors.js";

// Pragmatic RFC 5322 subset: what a .NET EmailAddress check accepts for ordinary ASCII addresses.
const EMAIL_RE =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && EMAIL_RE.test(value);
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireObject(body: unknown): JsonObject {
  if (!isObject(body)) throw badRequest(MSG.bodyMustBeObject);
  return body;
}

export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** 0/1 flags: Yes/No flags are integers, 0 = no, 1 = yes. */
export function isFlag(value: unknown): value is 0 | 1 {
  return value === 0 || value === 1;
}

export function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

/** Collects every problem of one request so the 400 lists them all, like the real service does. */
export class Problems {
  readonly list: string[] = [];

  add(message: string): void {
    this.list.push(message);
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw badRequest(...this.list);
  }
}

/** A comma separated e-mail list; `allowDisable` admits `disable`, which turns stakeholder e-mails off. */
export function isEmailList(value: string, allowDisable: boolean): boolean {
  if (allowDisable && value.trim().toLowerCase() === "disable") return true;
  const parts = value.split(",").map((p) => p.trim());
  return parts.length > 0 && parts.every(isEmail);
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
