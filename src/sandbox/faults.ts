/** Fault injection: rules checked in order before routing, each applying to a bounded number of requests. */
import { badRequest } from "./errors.js";
import type { FaultKind, FaultRule } from "./types.js";
import { isObject } from "./validate.js";

const KINDS: readonly FaultKind[] = ["status", "reset-before", "lost-after", "latency", "hang"];

/** "*" matches one path segment, "**" any number of them (including none). */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*" && glob[i + 1] === "*") {
      // "/**" also matches the bare parent path ("/v3/**" matches "/v3").
      if (re.endsWith("/")) re = `${re.slice(0, -1)}(?:/.*)?`;
      else re += ".*";
      i++;
    } else if (ch === "*") re += "[^/]*";
    else re += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}/?$`);
}

interface ActiveRule {
  rule: FaultRule;
  pattern: RegExp | undefined;
  seen: number;
  applied: number;
}

export interface FaultDecision {
  /** Sum of the matching latency rules. */
  delayMs: number;
  /** The first matching non-latency rule, if any. */
  terminal: FaultRule | undefined;
}

/** Checks a rule's shape; `times` may be the string "Infinity" (JSON cannot carry Infinity). */
export function normalizeFaultRule(input: unknown): FaultRule {
  if (!isObject(input)) throw badRequest("A fault rule must be a JSON object");
  const errors: string[] = [];
  const kind = input.kind as FaultKind;
  if (!KINDS.includes(kind)) errors.push(`kind must be one of ${KINDS.join(", ")}`);
  const rule: FaultRule = { kind };
  if (input.method !== undefined && input.method !== null) {
    if (typeof input.method === "string" && input.method !== "") rule.method = input.method.toUpperCase();
    else errors.push("method must be a non-empty string");
  }
  if (input.path !== undefined && input.path !== null) {
    if (typeof input.path === "string" && input.path.startsWith("/")) rule.path = input.path;
    else errors.push("path must be a glob starting with /");
  }
  if (kind === "status") {
    if (
      typeof input.status === "number" &&
      Number.isInteger(input.status) &&
      input.status >= 100 &&
      input.status <= 599
    ) {
      rule.status = input.status;
    } else errors.push("status (100-599) is required for kind status");
  }
  if (input.body !== undefined && input.body !== null) {
    if (typeof input.body === "string") rule.body = input.body;
    else errors.push("body must be a string");
  }
  if (typeof input.contentType === "string") rule.contentType = input.contentType;
  if (input.headers !== undefined && input.headers !== null) {
    if (isObject(input.headers) && Object.values(input.headers).every((v) => typeof v === "string")) {
      rule.headers = input.headers as Record<string, string>;
    } else errors.push("headers must map names to strings");
  }
  if (kind === "latency") {
    if (typeof input.delayMs === "number" && input.delayMs >= 0) rule.delayMs = input.delayMs;
    else errors.push("delayMs (≥ 0) is required for kind latency");
  }
  if (input.times !== undefined && input.times !== null) {
    const times = input.times === "Infinity" ? Number.POSITIVE_INFINITY : input.times;
    if (
      typeof times === "number" &&
      times >= 0 &&
      (Number.isInteger(times) || times === Number.POSITIVE_INFINITY)
    ) {
      rule.times = times;
    } else errors.push('times must be a non-negative integer or "Infinity"');
  }
  if (input.skip !== undefined && input.skip !== null) {
    if (typeof input.skip === "number" && Number.isInteger(input.skip) && input.skip >= 0)
      rule.skip = input.skip;
    else errors.push("skip must be a non-negative integer");
  }
  if (errors.length > 0) throw badRequest(...errors);
  return rule;
}

export class FaultSet {
  private rules: ActiveRule[] = [];

  add(rule: FaultRule): FaultRule {
    const normalized = normalizeFaultRule(rule);
    this.rules.push({
      rule: normalized,
      pattern: normalized.path === undefined ? undefined : globToRegExp(normalized.path),
      seen: 0,
      applied: 0,
    });
    return normalized;
  }

  clear(): number {
    const n = this.rules.length;
    this.rules = [];
    return n;
  }

  list(): Array<FaultRule & { seen: number; applied: number }> {
    return this.rules.map((r) => ({
      ...r.rule,
      // JSON has no Infinity: spell it as the control endpoint accepts it.
      times: (r.rule.times === Number.POSITIVE_INFINITY ? "Infinity" : r.rule.times) as number,
      seen: r.seen,
      applied: r.applied,
    }));
  }

  /** Consumes the rules this request triggers. */
  take(method: string, path: string): FaultDecision {
    let delayMs = 0;
    for (const active of this.rules) {
      const { rule } = active;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (active.pattern && !active.pattern.test(path)) continue;
      active.seen++;
      if (active.seen <= (rule.skip ?? 0)) continue;
      if (active.applied >= (rule.times ?? 1)) continue;
      active.applied++;
      if (rule.kind === "latency") delayMs += rule.delayMs ?? 0;
      else return { delayMs, terminal: rule };
    }
    return { delayMs, terminal: undefined };
  }
}
