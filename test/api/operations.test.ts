/**
 * The table of operations (src/api/operations/) is the one record of each operation, and what any
 * face of the client (the API layer, the SDK, the OpenAPI document, a tool list) iterates. Each record must
 * say where it is on the client, what it does in words, and whether it reads, writes or overwrites.
 */
import { describe, expect, it } from "vitest";
import { OPERATIONS, operations, PATH_PARAMETERS } from "../../src/api/operations/index.js";

const all = operations();

describe("the table of operations", () => {
  it("has 32 operations, in the order of the table, each at its own resource and verb", () => {
    expect(all.map(([name]) => name)).toEqual(Object.keys(OPERATIONS));
    expect(all).toHaveLength(32);
    const places = all.map(([, r]) => `${r.resource}.${r.verb}`);
    expect(new Set(places).size).toBe(places.length);
    const routes = all.map(([, r]) => `${r.method} ${r.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("describes each in a sentence, and says whether it reads, adds, or may overwrite", () => {
    const wrong: string[] = [];
    for (const [name, r] of all) {
      if (!/^[A-Z].{10,}\.$/.test(r.description)) wrong.push(`${name}: description "${r.description}"`);
      if (r.method === "GET" && r.effect !== "read") wrong.push(`${name}: a GET that is not a read`);
      if (r.effect === "read" && r.body !== undefined) wrong.push(`${name}: a read with a body to check`);
    }
    expect(wrong).toEqual([]);
    // The one POST that only reads; and the writes that overwrite or remove are marked.
    const reads = all.filter(([, r]) => r.effect === "read" && r.method !== "GET");
    expect(reads.map(([n]) => n)).toEqual(["listAttempts"]);
    expect(OPERATIONS.cancelInvitation.effect).toBe("overwrite");
    expect(OPERATIONS.maskCandidate.effect).toBe("overwrite");
    expect(OPERATIONS.invite.effect).toBe("add");
  });

  it("names every path parameter it uses, and gives page parameters only as documented query parameters", () => {
    for (const [name, r] of all) {
      for (const [, param] of r.path.matchAll(/\{(\w+)\}/g))
        expect(PATH_PARAMETERS[param!], name).toBeDefined();
      if (r.pagination) {
        const query = (r.query ?? []).map((q) => q.name);
        expect(query, name).toEqual([r.pagination.page, r.pagination.size]);
        expect(r.path, name).not.toContain("{");
      }
    }
    expect(all.filter(([, r]) => r.pagination).map(([n]) => n)).toEqual([
      "listTests",
      "listEmployees",
      "listSkillsProfiles",
    ]);
  });

  it("carries the service's per-request limits", () => {
    const limits = Object.fromEntries(all.filter(([, r]) => r.limits).map(([n, r]) => [n, r.limits!.items]));
    expect(limits).toEqual({ processCallbacks: 100, bulkInvite: 1000, upsertEmployees: 100 });
  });
});
