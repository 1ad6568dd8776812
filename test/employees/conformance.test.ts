import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Api } from "../../src/api/endpoints.js";
import { type Json, type JsonBytes, toJson } from "../../src/api/json.js";
import { OPERATIONS } from "../../src/api/operations/index.js";
import { Transport } from "../../src/api/transport.js";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

/** The documented route (the table of operations) a recorded request matches, e.g. "PATCH /employees/{employeeId}/status". */
function routeOf(method: string, path: string): string | undefined {
  return Object.values(OPERATIONS)
    .map(({ method, path }) => `${method} ${path}`)
    .find((route) => {
      const [m, template] = route.split(" ") as [string, string];
      const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "\\d+")}$`);
      return m === method && pattern.test(path);
    });
}

describe("every employee-skills command, over a skills base URL with a path prefix", () => {
  it("sends the documented method and path with x-api-key, and succeeds", async () => {
    const resume = join(t.configDir, "cv.pdf");
    writeFileSync(resume, "%PDF-1.4 Java and Spring Boot developer");
    const runs: Array<[string[], string]> = [
      [["employees", "list", "--all"], "GET /employees"],
      [["employees", "skills-profiles", "--all"], "GET /employees/skills-profile"],
      [["employees", "skills", "501"], "GET /employees/{employeeId}/skills-profile"],
      [["employees", "certificates", "501", "--with-skills"], "GET /employees/{employeeId}/certificates"],
      [
        ["employees", "add-certificate", "501", "--title", "Oracle Certified Java Programmer"],
        "POST /employees/{employeeId}/certificates",
      ],
      [["employees", "status", "501", "Active"], "PATCH /employees/{employeeId}/status"],
      [["employees", "upload-resume", "501", resume], "POST /employees/{EmployeeId}/resume/upload"],
      [
        ["employees", "assign-learning", "501", "--skill", "Java"],
        "POST /employees/{employeeId}/learning/assign",
      ],
      [["employees", "skill-gap", "501"], "GET /employees/{employeeId}/skill-gap"],
    ];
    for (const [argv, route] of runs) {
      const before = t.sandbox.requests.length;
      const r = await t.run(argv);
      expect(r.code, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
      const sent = t.sandbox.requests.slice(before);
      expect(sent.length).toBeGreaterThan(0);
      for (const req of sent) {
        expect(routeOf(req.method, req.path)).toBe(route);
        expect(req.rawUrl.startsWith("/skills/employees")).toBe(true);
        expect(req.headers["x-api-key"]).toBe(SANDBOX_KEYS.acme);
        expect(req.status).toBeLessThan(300);
      }
    }
  });

  /** The API client the bulk commands use, on the test sandbox, with no retries. */
  const sandboxClient = () =>
    new Transport({
      baseUrl: t.sandbox.url,
      skillsBaseUrl: t.sandbox.skillsUrl,
      apiKey: SANDBOX_KEYS.acme,
      timeoutMs: 5000,
      retries: 0,
      userAgent: "test",
      warn: () => undefined,
    });

  it("upsert refuses a request of no employees or of more than 100 before sending it (a ZodError: never sent)", async () => {
    const client = sandboxClient();
    try {
      const before = t.sandbox.requests.length;
      const many = Array.from({ length: 101 }, (_, i) => jsonBytes(toJson({ email: `e${i}@acme.example` })));
      for (const items of [[], many]) {
        const error = await new Api(client).upsertEmployees(items).catch((e: unknown) => e);
        expect((error as Error).name).toBe("ZodError");
      }
      expect(t.sandbox.requests.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("upsert (the typed function `employees upsert` builds on) answers successful and failed items", async () => {
    const client = sandboxClient();
    try {
      const before = t.sandbox.requests.length;
      const result = await new Api(client).upsertEmployees([
        jsonBytes(
          toJson({ email: "new.hire@acme.example", firstName: "New", lastName: "Hire", jobCode: "QA1" }),
        ),
        jsonBytes(toJson({ email: "bad@acme.example", firstName: "Bad", lastName: "Job", jobCode: "NOPE" })),
      ]);
      expect(result.successful?.map((s) => s.email)).toEqual(["new.hire@acme.example"]);
      expect(result.failed?.[0]?.errors).toContain("Unknown job code");
      const [req] = t.sandbox.requests.slice(before);
      expect(req).toMatchObject({ method: "POST", path: "/employees/upsert", api: "skills" });
      expect(req?.rawUrl).toBe("/skills/employees/upsert");
      expect(req?.headers["content-type"]).toBe("application/json");

      // The new employee is then served by the other operations.
      const id = result.successful?.[0]?.employeeId;
      const gap = await t.run(["employees", "skill-gap", String(id), "--json"]);
      expect(gap.json()).toMatchObject({ employeeId: id, jobCode: "QA1" });
    } finally {
      await client.close();
    }
  });
});

/** An item's bytes as a bulk run hands them over (a slice of its spool), from its JSON text. */
function jsonBytes<T>(json: Json<T>): JsonBytes<T> {
  const bytes = Buffer.from(json);
  return { bytes, start: 0, end: bytes.length };
}
