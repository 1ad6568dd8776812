/** A tiny method+path router. `:name` segments match digits only, so `/employees/skills-profile` never hits `:id`. */
import type { Handler } from "./context.js";

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

export type RouteMatch =
  | { kind: "found"; handler: Handler; params: Record<string, string> }
  | { kind: "wrong-method"; allow: string[] }
  | { kind: "none" };

const DIGITS = /^\d{1,18}$/;

export function splitPath(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: splitPath(pattern), handler });
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    const allow: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { kind: "found", handler: route.handler, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { kind: "wrong-method", allow } : { kind: "none" };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(":")) {
      if (!DIGITS.test(v)) return undefined;
      params[p.slice(1)] = v;
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}
