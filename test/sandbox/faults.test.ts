import { afterEach, describe, expect, it } from "vitest";
import { sleep } from "../helpers/cli.js";
import { ACME, call, start, useSandbox } from "./helpers.js";

const { sb, c } = useSandbox();
afterEach(() => sb.faults.clear());

const invitationsOf = (email: string) => sb.state.invitations.filter((i) => i.email === email);

describe("fault injection", () => {
  it("status: answers the given status, body and headers without touching state", async () => {
    sb.faults.add({
      method: "POST",
      path: "/v3/tests/*/invite/bulk",
      kind: "status",
      status: 429,
      headers: { "retry-after": "1" },
    });
    const body = { candidates: [{ email: "limited@example.com", name: "Limited" }] };
    const a = await c.api("POST", "/v3/tests/1001/invite/bulk", { body });
    expect(a.status).toBe(429);
    expect(a.headers.get("retry-after")).toBe("1");
    expect(a.json).toEqual({ statusCode: 429, message: "Too Many Requests" });
    expect(invitationsOf("limited@example.com")).toHaveLength(0);
    // times defaults to 1: the next one goes through.
    const b = await c.api("POST", "/v3/tests/1001/invite/bulk", { body });
    expect(b.status).toBe(200);
    expect(invitationsOf("limited@example.com")).toHaveLength(1);
    // Faulted requests are recorded too.
    expect(sb.requests.at(-2)).toMatchObject({ path: "/v3/tests/1001/invite/bulk", status: 429 });
  });

  it("status: serves an HTML proxy page as text/html", async () => {
    sb.faults.add({
      path: "/v3/**",
      kind: "status",
      status: 502,
      body: "<html><body>Bad gateway</body></html>",
    });
    const a = await c.api("GET", "/v3/tests");
    expect(a.status).toBe(502);
    expect(a.headers.get("content-type")).toMatch(/^text\/html/);
    expect(a.text).toContain("Bad gateway");
  });

  it("reset-before: destroys the connection and changes nothing", async () => {
    sb.faults.add({ method: "POST", path: "/v3/tests/1001/invite", kind: "reset-before" });
    await expect(
      c.api("POST", "/v3/tests/1001/invite", { body: { emailId: "reset@example.com", fullName: "Reset" } }),
    ).rejects.toThrow();
    expect(invitationsOf("reset@example.com")).toHaveLength(0);
  });

  it("lost-after: processes the request (state changed) but never answers", async () => {
    sb.faults.add({ method: "POST", path: "/v3/tests/1001/invite", kind: "lost-after" });
    await expect(
      c.api("POST", "/v3/tests/1001/invite", { body: { emailId: "lost@example.com", fullName: "Lost" } }),
    ).rejects.toThrow();
    expect(invitationsOf("lost@example.com")).toHaveLength(1);
    expect(sb.requests.at(-1)).toMatchObject({ path: "/v3/tests/1001/invite", status: 201 });
  });

  it("latency: delays, then continues; skip lets requests through first", async () => {
    sb.faults.add({ path: "/v3/tests", kind: "latency", delayMs: 300, skip: 1, times: 1 });
    let t = Date.now();
    await c.api("GET", "/v3/tests");
    const skipped = Date.now() - t;
    t = Date.now();
    const a = await c.api("GET", "/v3/tests");
    const delayed = Date.now() - t;
    // The second request waited the 300 ms; the first, skipped, did not (no bound on how fast it was).
    expect(delayed).toBeGreaterThanOrEqual(290);
    expect(delayed - skipped).toBeGreaterThanOrEqual(150);
    expect(a.status).toBe(200);
  });

  it("hang: never answers (the client times out)", async () => {
    sb.faults.add({ path: "/employees", kind: "hang" });
    await expect(
      fetch(`${sb.skillsUrl}/employees`, {
        headers: { "x-api-key": ACME },
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    const after = await c.skills("GET", "/employees");
    expect(after.status).toBe(200);
  });

  it("is driven over HTTP too: times as the string Infinity, and clearing", async () => {
    const add = await call(sb.url, "POST", "/_sandbox/faults", {
      key: null,
      body: { kind: "status", status: 503, path: "/v3/tests", times: "Infinity" },
    });
    expect(add.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await c.api("GET", "/v3/tests")).status).toBe(503);
    const bad = await call(sb.url, "POST", "/_sandbox/faults", { key: null, body: { kind: "explode" } });
    expect(bad.status).toBe(400);
    const cleared = await call(sb.url, "DELETE", "/_sandbox/faults", { key: null });
    expect(cleared.json).toEqual({ cleared: 1 });
    expect((await c.api("GET", "/v3/tests")).status).toBe(200);
  });
});

describe("hang and close", () => {
  it("close() returns even with a hanging request and keep-alive connections open", async () => {
    const other = await start();
    other.faults.add({ kind: "hang" });
    const pending = fetch(`${other.url}/v3/tests`, { headers: { "x-api-key": ACME } }).catch(
      (e: unknown) => e,
    );
    await sleep(50);
    await other.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});
