import { describe, expect, it } from "vitest";
import { ACME, call, GLOBEX, start, useSandbox } from "./helpers.js";

const { sb, c } = useSandbox();

describe("authentication, scoping and routing", () => {
  it("serves the two APIs under their prefixes", () => {
    expect(sb.url).toBe(`http://127.0.0.1:${sb.port}/api`);
    expect(sb.skillsUrl).toBe(`http://127.0.0.1:${sb.port}/skills`);
  });

  it("answers 401 with the gateway message when the key is missing or unknown", async () => {
    const expected = {
      statusCode: 401,
      message:
        "Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.",
    };
    for (const key of [null, "not-a-key"]) {
      const a = await c.api("GET", "/v3/tests", { key });
      expect(a.status).toBe(401);
      expect(a.json).toEqual(expected);
      const s = await c.skills("GET", "/employees", { key });
      expect(s.status).toBe(401);
      expect(s.json).toEqual(expected);
    }
  });

  it("refuses another account's test with 403 on every route that carries a testId", async () => {
    const forbidden = { statusCode: 403, message: "You do not have permission to access resource" };
    const routes: Array<[string, string, unknown?]> = [
      ["GET", "/v3/tests/2001"],
      ["GET", "/v3/tests/2001/settings"],
      ["POST", "/v3/tests/2001/settings", {}],
      ["POST", "/v3/tests/2001/invite", { emailId: "a@example.com", fullName: "A" }],
      ["POST", "/v3/tests/2001/invite/bulk", { candidates: [{ email: "a@example.com", name: "A" }] }],
      ["GET", "/v3/tests/2001/testlinks"],
      ["GET", "/v3/tests/2001/testlinks/3006"],
      ["POST", "/v3/tests/2001/testlinks", {}],
      ["POST", "/v3/tests/2001/testlinks/3006", {}],
      ["POST", "/v3/tests/2001/testlinks/3006/invite", { emailId: "a@example.com", fullName: "A" }],
    ];
    for (const [method, path, body] of routes) {
      const a = await c.api(method, path, { body });
      expect(a.status, `${method} ${path}`).toBe(403);
      expect(a.json).toEqual(forbidden);
    }
    const report = await c.skills("GET", "/employees/501/reports/2001");
    expect(report.status).toBe(403);
    // And the other way round.
    const g = await c.api("GET", "/v3/tests/1001", { key: GLOBEX });
    expect(g.status).toBe(403);
  });

  it("answers 404 Test not found for a test nobody owns", async () => {
    const a = await c.api("GET", "/v3/tests/999999");
    expect(a.status).toBe(404);
    expect(a.json).toEqual({ statusCode: 404, message: "Test not found" });
  });

  it("answers 404 Resource not found for unknown routes and 405 for a wrong method", async () => {
    for (const path of ["/v3/nothing", "/v4/tests", "/v3/tests/abc"]) {
      const a = await c.api("GET", path);
      expect(a.status, path).toBe(404);
      expect(a.json).toEqual({ statusCode: 404, message: "Resource not found" });
    }
    // The assessment API is not served without its prefix.
    const bare = await call(`http://127.0.0.1:${sb.port}`, "GET", "/v3/tests");
    expect(bare.status).toBe(404);
    const wrong = await c.api("DELETE", "/v3/tests");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
  });

  it("answers 415 to a body that is not declared JSON and 400 to broken JSON", async () => {
    const text = await c.api("POST", "/v3/tests/1001/invite", {
      rawBody: JSON.stringify({ emailId: "a@example.com", fullName: "A" }),
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    const broken = await c.api("POST", "/v3/tests/1001/invite", {
      rawBody: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({ errors: ["Request body is not valid JSON"] });
  });

  it("scopes employees to the key's account", async () => {
    const own = await c.skills("GET", "/employees/501/skills-profile");
    expect(own.status).toBe(200);
    const foreign = await c.skills("GET", "/employees/501/skills-profile", { key: GLOBEX });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ statusCode: 404, message: "Employee not found" });
  });

  it("records API requests without prefix and query, and serves control endpoints at root and under prefixes", async () => {
    const before = sb.requests.length;
    await c.api("GET", "/v3/tests?pageNo=1&pageSize=2");
    const rec = sb.requests.at(-1)!;
    expect(sb.requests.length).toBe(before + 1);
    expect(rec).toMatchObject({
      method: "GET",
      path: "/v3/tests",
      rawUrl: "/api/v3/tests?pageNo=1&pageSize=2",
      query: { pageNo: "1", pageSize: "2" },
      status: 200,
      api: "assess",
    });
    expect(rec.headers["x-api-key"]).toBeDefined();
    for (const base of [`http://127.0.0.1:${sb.port}`, sb.url, sb.skillsUrl]) {
      const h = await call(base, "GET", "/_sandbox/health", { key: null });
      expect(h.status).toBe(200);
      expect(h.json.status).toBe("ok");
    }
    const since = await call(sb.url, "GET", `/_sandbox/requests?since=${rec.seq - 1}`, { key: null });
    expect(since.json.map((r: { seq: number }) => r.seq)).toEqual([rec.seq]);
    // Control requests are not recorded.
    expect(sb.requests.at(-1)!.seq).toBe(rec.seq);
  });

  it("logs one line per request without the key, and adds latencyMs to every answer", async () => {
    const lines: string[] = [];
    const other = await start({ log: (l) => lines.push(l), latencyMs: 120 });
    try {
      const t = Date.now();
      const a = await call(other.url, "GET", "/v3/tests/1001");
      expect(a.status).toBe(200);
      expect(Date.now() - t).toBeGreaterThanOrEqual(110);
      await call(other.url, "GET", "/_sandbox/health", { key: null });
      expect(lines[0]).toMatch(/^GET \/api\/v3\/tests\/1001 200 \d+ms$/);
      expect(lines).toHaveLength(2);
      expect(lines.join("\n")).not.toContain(ACME);
    } finally {
      await other.close();
    }
  });
});
