import { describe, expect, it } from "vitest";
import { readErrorBody } from "../../src/api/transport.js";
import { joinUrl } from "../../src/api/url.js";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv({ clearFaults: true });

describe("base URLs with a path prefix", () => {
  it("joins paths after the prefix, with or without a trailing slash", () => {
    expect(joinUrl("https://h/api", "/v3/tests")).toBe("https://h/api/v3/tests");
    expect(joinUrl("https://h/api/", "/v3/tests", { pageNo: 1 })).toBe("https://h/api/v3/tests?pageNo=1");
    expect(joinUrl("https://h", "/employees")).toBe("https://h/employees");
  });
});

describe("error bodies", () => {
  it("reads all three documented shapes and non-JSON pages", () => {
    expect(readErrorBody(400, { errors: ["a", "b"] })).toEqual({ messages: ["a", "b"], ids: [] });
    expect(readErrorBody(401, { result: null, errors: ["Invalid ids", 5, 6] })).toEqual({
      messages: ["Invalid ids"],
      ids: [5, 6],
    });
    expect(readErrorBody(403, { statusCode: 403, message: "nope" })).toEqual({ messages: ["nope"], ids: [] });
    expect(readErrorBody(502, "<html><title>502 Bad Gateway</title></html>").messages[0]).toContain(
      '"502 Bad Gateway"',
    );
    expect(readErrorBody(500, undefined).messages).toEqual(["The service answered HTTP 500"]);
  });
});

describe("retries and uncertainty", () => {
  it("a GET is retried after 503 and 429 (Retry-After) and succeeds; each wait is logged", async () => {
    t.sandbox.faults.add({ method: "GET", path: "/v3/tests", kind: "status", status: 503, times: 1 });
    t.sandbox.faults.add({
      method: "GET",
      path: "/v3/tests",
      kind: "status",
      status: 429,
      headers: { "retry-after": "0" },
      times: 1,
    });
    const r = await t.run(["tests", "list", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/retrying in/g)).toHaveLength(2);
  });

  it("gives up after --retries and exits 1 naming the URL", async () => {
    t.sandbox.faults.add({
      method: "GET",
      path: "/v3/tests",
      kind: "status",
      status: 502,
      body: "<html><title>Bad Gateway</title></html>",
      contentType: "text/html",
      times: 5,
    });
    const r = await t.run(["tests", "list", "--retries", "1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Bad Gateway");
  });

  it("a POST whose answer is lost is reported as maybe processed (exit 1), not resent", async () => {
    t.sandbox.faults.add({ method: "POST", path: "/v3/tests/*/invite", kind: "lost-after" });
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "lost@example.com",
      "--name",
      "Lost",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("may have been processed");
    expect(t.sandbox.requests.length - before).toBe(1);
  });

  it("a POST refused with 503 is retried (the service cannot have processed it)", async () => {
    t.sandbox.faults.add({ method: "POST", path: "/v3/tests/*/invite", kind: "status", status: 503 });
    const r = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "retry@example.com",
      "--name",
      "Retry",
    ]);
    expect(r.code).toBe(0);
  });

  it("the attempt listing is a POST that only reads, so a 502 on it is retried like a GET", async () => {
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "status",
      status: 502,
    });
    const r = await t.run(["attempts", "list", "--from", "10d", "--to", "now", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("HTTP 502");
    expect(Array.isArray(r.json())).toBe(true);
  });

  it("a hung request times out and is retried for GET", async () => {
    t.sandbox.faults.add({ method: "GET", path: "/v3/tests", kind: "hang" });
    const r = await t.run(["tests", "list", "--timeout", "300", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("no answer within 300 ms");
  });

  it("a refused connection exits 1 with the URL and what to check", async () => {
    const r = await t.run(["tests", "list", "--base-url", "http://127.0.0.1:9", "--retries", "0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("connection refused");
    expect(r.stderr).toContain("http://127.0.0.1:9");
  });
});

describe("secrets and transport safety", () => {
  it("--debug logs each exchange without the key", async () => {
    const r = await t.run(["tests", "list", "--debug", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[debug\] → GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/tests/);
    expect(r.stderr).toMatch(/\[debug\] ← 200/);
    expect(r.stderr).not.toContain(SANDBOX_KEYS.acme);
  });

  it("refuses http:// to a non-loopback host unless --allow-http", async () => {
    const r = await t.run(["tests", "list", "--base-url", "http://api.example.com"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--allow-http");
  });

  it("a wrong key → exit 4 with the service's message and a hint", async () => {
    const r = await t.run(["tests", "list"], { env: { ASSESS_API_KEY: "sbx-nope-000000000" } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("assess auth login");
    // The hint names where the refused key came from.
    expect(r.stderr).toContain("The key sent comes from ASSESS_API_KEY");
    expect(r.stderr).not.toContain("sbx-nope-000000000");
  });

  it("--sandbox with --api-key sends the flag's key, and a refusal says it came from --api-key", async () => {
    const r = await t.run(["--sandbox", "--api-key", "sbx-nope-000000000", "tests", "list"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("The key sent comes from --api-key;");
    expect(r.stderr).not.toContain("demo account;");
  });
});
