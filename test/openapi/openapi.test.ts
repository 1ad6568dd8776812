/**
 * `assess openapi` prints an OpenAPI 3.1 document of both services, generated from the client's zod
 * schemas. It must validate (@readme/openapi-parser, which checks 3.1 against its JSON Schema and more), and
 * name every operation of the one table of operations (src/api/operations/) with its method, path and
 * parameters.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { openApiDocument } from "../../src/api/openapi.js";
import { OPERATIONS } from "../../src/api/operations/index.js";
import { ROOT } from "../bulk/helpers.js";
import { loadedBy, runCli, SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
}
type PathItem = Record<string, Operation> & { servers?: Array<{ url: string }> };
interface Document {
  openapi: string;
  servers: Array<{ url: string }>;
  security: unknown;
  paths: Record<string, PathItem>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, unknown>;
    responses: Record<string, { content: Record<string, { schema: unknown }> }>;
  };
}

const SERVERS = { baseUrl: "https://assess.example/api", skillsBaseUrl: "https://skills.example" };
const doc = openApiDocument(SERVERS) as unknown as Document;
const METHODS = new Set(["get", "post", "patch", "put", "delete"]);
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.has(method))
    .map(([method, op]) => ({ path, method, op: op as Operation })),
);
const find = (operationId: string) => {
  const found = operations.find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
};

const configDir = mkdtempSync(join(tmpdir(), "assess-openapi-"));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
const env = {
  ASSESS_CONFIG_DIR: configDir,
  ASSESS_BASE_URL: SERVERS.baseUrl,
  ASSESS_SKILLS_BASE_URL: SERVERS.skillsBaseUrl,
};

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (@readme/openapi-parser)", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it("has every operation of the table once, with its method, path and path parameters", () => {
    expect(operations).toHaveLength(Object.keys(OPERATIONS).length);
    for (const [operationId, { method, path }] of Object.entries(OPERATIONS)) {
      const { path: documented, method: verb, op } = find(operationId);
      expect(`${verb.toUpperCase()} ${documented}`, operationId).toBe(`${method} ${path}`);
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === "path");
      expect(
        declared.map((p) => p.name),
        operationId,
      ).toEqual(inPath);
      expect(declared.every((p) => p.required)).toBe(true);
    }
  });

  it("declares the query parameters the client sends", () => {
    const query = (operationId: string) =>
      (find(operationId).op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    expect(query("listTests")).toEqual(["pageNo", "pageSize"]);
    expect(query("listEmployees")).toEqual(["PageNumber", "PageSize"]);
    expect(query("listSkillsProfiles")).toEqual(["PageNumber", "PageSize"]);
    expect(query("getReport")).toEqual(["reportType"]);
    expect(query("listAttempts")).toEqual(["state"]);
    expect(query("listCertificates")).toEqual(["includeSkills"]);
  });

  it("requires the x-api-key header scheme on every operation", () => {
    expect(doc.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "x-api-key" }),
    });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it("serves assessment paths from the base URL and employee-skills paths from the skills base URL", () => {
    expect(doc.servers.map((s) => s.url)).toEqual([SERVERS.baseUrl]);
    for (const [path, item] of Object.entries(doc.paths)) {
      const skills = !path.startsWith("/v3/");
      expect(
        item.servers?.map((s) => s.url),
        path,
      ).toEqual(skills ? [SERVERS.skillsBaseUrl] : undefined);
    }
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith("/v3/"))).toContain("/employees/upsert");
  });

  it("gives the request bodies of src/api/schemas.ts, strict as the client checks them", () => {
    const body = (operationId: string) =>
      find(operationId).op.requestBody?.content["application/json"]?.schema;
    expect(body("invite")).toEqual({ $ref: "#/components/schemas/InviteBody" });
    expect(body("upsertEmployees")).toEqual({ $ref: "#/components/schemas/UpsertBody" });
    expect(doc.components.schemas.InviteBody).toMatchObject({
      type: "object",
      additionalProperties: false,
      properties: { sendEmail: { enum: ["yes", "no"] }, ProctoringMode: expect.any(Object) },
    });
    expect(doc.components.schemas.UpsertBody).toMatchObject({ type: "array", minItems: 1, maxItems: 100 });
    expect(doc.components.schemas.BulkInviteBody).toMatchObject({
      required: ["candidates"],
      properties: { candidates: { maxItems: 1000 } },
    });
    expect(find("uploadResume").op.requestBody?.content).toHaveProperty("multipart/form-data");
  });

  it("answers 400, 401, 403, 404 and 429 with the service's documented error bodies", () => {
    for (const { op } of operations) {
      const statuses = Object.keys(op.responses).filter((s) => s !== "201"); // 201: where the service says so
      expect(statuses.sort(), op.operationId).toEqual(["200", "400", "401", "403", "404", "429"]);
    }
    expect(Object.keys(find("invite").op.responses)).toContain("201");
    expect(doc.components.schemas.ErrorList).toMatchObject({
      required: ["errors"],
      properties: { errors: { type: "array", items: { type: "string" } } },
    });
    expect(doc.components.schemas.StatusMessage).toMatchObject({ required: ["statusCode", "message"] });
    expect(doc.components.schemas.ResultErrors).toMatchObject({
      required: ["result", "errors"],
      properties: { result: { type: "null" } },
    });
    expect(JSON.stringify(find("processCallbacks").op.responses["401"])).toContain("ResultErrors");
  });
});

describe("assess openapi", () => {
  it("prints YAML by default, the same document as --format json", async () => {
    const yaml = await runCli(["openapi"], { env });
    const json = await runCli(["openapi", "--format", "json"], { env });
    expect([yaml.code, yaml.stderr, json.code, json.stderr]).toEqual([0, "", 0, ""]);
    expect(yaml.stdout.startsWith("openapi: 3.1.0\n")).toBe(true);
    expect(parseYaml(yaml.stdout)).toEqual(json.json());
    expect(json.json()).toEqual(doc);
    const result = await validate(parseYaml(yaml.stdout));
    expect(result.valid).toBe(true);
  });

  it("prints JSON with the global --json too", async () => {
    const r = await runCli(["--json", "openapi"], { env });
    expect(r.code).toBe(0);
    expect(r.json<Document>().openapi).toBe("3.1.0");
  });

  it("names the profile's base URLs as its servers", async () => {
    const r = await runCli(["openapi", "--format", "json"], {
      env: { ...env, ASSESS_BASE_URL: "https://other.example", ASSESS_SKILLS_BASE_URL: "https://sk.example" },
    });
    const printed = r.json<Document>();
    expect(printed.servers[0]?.url).toBe("https://other.example");
    expect(printed.paths["/employees"]?.servers?.[0]?.url).toBe("https://sk.example");
  });

  it("is built into a chunk of its own, and the YAML library (shared with the rules files) into another: --help and other commands load neither", async () => {
    const dist = join(ROOT, "dist"); // built by test/global-setup.ts
    const holding = (text: string) =>
      readdirSync(dist).filter(
        (f) => f.endsWith(".cjs") && readFileSync(join(dist, f), "utf8").includes(text),
      );
    const chunks = holding("#/components/schemas/");
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatch(/^openapi-\w+\.cjs$/);
    const yaml = holding("YAMLSeq");
    expect(yaml).toHaveLength(1);
    expect(["launch.cjs", "program.cjs", "cli.cjs"]).not.toContain(yaml[0]);
    const apart = [...chunks, ...yaml].map((f) => join(dist, f));
    for (const args of [["--help"], ["tests", "list", "--dry-run"], ["config", "path"]]) {
      const r = await loadedBy(args, { ...env, ASSESS_API_KEY: SANDBOX_KEYS.acme });
      expect(r.code, args.join(" ")).toBe(0);
      expect(
        r.loaded.filter((f) => apart.includes(f)),
        args.join(" "),
      ).toEqual([]);
    }
    const openapi = await loadedBy(["openapi"], env);
    expect(openapi.loaded).toEqual(expect.arrayContaining(apart));
  });

  it("refuses another format with a usage error (exit 2)", async () => {
    const r = await runCli(["openapi", "--format", "xml"], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });
});

const GENERIC_ERRORS: Operation["responses"] = Object.fromEntries(
  Object.entries({
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    429: "TooManyRequests",
  }).map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]),
);

/**
 * A checker of bodies against the document's schemas (JSON Schema 2020-12, as OpenAPI 3.1 has them): the
 * schema of an operation's answer of `status` (or of a shared error answer), as `contentType`.
 */
function answerChecker() {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  const base = "https://assess.invalid/openapi.json";
  const rebase = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`)) as object;
  ajv.addSchema({ $id: base, components: rebase(doc.components) });
  const resolve = (answer: { $ref?: string; content?: Record<string, { schema: unknown }> } | undefined) =>
    answer?.$ref ? doc.components.responses[answer.$ref.split("/").at(-1)!] : answer;
  return (
    where: { operationId?: string; status: number; contentType: string },
    body: unknown,
  ): string | undefined => {
    // A generic error (any operation's): the shared answer of its status.
    const answers = where.operationId ? find(where.operationId).op.responses : GENERIC_ERRORS;
    const answer = resolve(answers[String(where.status)]);
    if (!answer) return `no ${where.status} answer is declared`;
    const content = answer.content?.[where.contentType];
    if (!content) return `no ${where.contentType} content is declared for ${where.status}`;
    return ajv.validate(rebase(content.schema), body) ? undefined : ajv.errorsText(ajv.errors);
  };
}

describe("the document's schemas accept the service's answers", () => {
  const t = useTestEnv();
  it("every answer of the replay corpus (fixtures/real) of a status the document declares", () => {
    const check = answerChecker();
    const samples = JSON.parse(readFileSync(join(ROOT, "fixtures/real/samples.json"), "utf8")) as Array<{
      file: string;
      operation: string;
      status: number | null;
      contentType: string;
      kind: string;
    }>;
    const problems: string[] = [];
    let checked = 0;
    for (const sample of samples) {
      if (sample.kind !== "response" || sample.status === null) continue;
      // An operation of the vendor's outside the table of operations; and 5xx, which the document does not describe.
      if (sample.operation === "listBusinessUnits" || sample.status >= 500) continue;
      const text = readFileSync(join(ROOT, "fixtures/real", sample.file), "utf8");
      if (text.trim() === "") continue; // an empty 201: no body to check
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        expect(sample.contentType, sample.file).not.toBe("application/json");
      }
      const generic = sample.operation === "error";
      const problem = check(
        {
          operationId: generic ? undefined : sample.operation,
          status: sample.status,
          contentType: sample.contentType,
        },
        body,
      );
      checked++;
      if (problem) problems.push(`${sample.file}: ${problem}`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(45);
  });

  it("the sandbox's answers, operation by operation", async () => {
    const check = answerChecker();
    const problems: string[] = [];
    const statuses = new Set<number>();
    const call = async (operationId: string, path: string, body?: unknown) => {
      const { method, path: template } = find(operationId);
      const skills = !template.startsWith("/v3/");
      const res = await fetch(`${skills ? t.sandbox.skillsUrl : t.sandbox.url}${path}`, {
        method: method.toUpperCase(),
        headers: {
          "x-api-key": SANDBOX_KEYS.acme,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!;
      const text = await res.text();
      // JSON text, whatever its declared type (the upsert's answer is declared text/plain).
      const data: unknown = /^[[{]|^(true|false)$/.test(text.trim()) ? JSON.parse(text) : text;
      statuses.add(res.status);
      const problem = check({ operationId, status: res.status, contentType }, data);
      if (problem) problems.push(`${operationId} ${path} (${res.status}): ${problem}`);
      return data as Record<string, unknown>;
    };
    const tests = await call("listTests", "/v3/tests?pageNo=1&pageSize=5");
    const testId = (tests.tests as Array<{ testId: number }>)[0]!.testId;
    await call("getTest", `/v3/tests/${testId}`);
    await call("getSettings", `/v3/tests/${testId}/settings`);
    const links = await call("listLinks", `/v3/tests/${testId}/testlinks`);
    const linkId = (links.testLinks as Array<{ testLinkId: number }>)[0]!.testLinkId;
    await call("getLink", `/v3/tests/${testId}/testlinks/${linkId}`);
    await call("getLink", `/v3/tests/2001/testlinks/${linkId}`); // another account's test: 403
    const end = new Date();
    const start = new Date(end.getTime() - 29 * 86_400_000);
    const iso = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
    const attempts = await call("listAttempts", "/v3/candidates/testattempts?state=completed", {
      StartDateTime: iso(start),
      EndDateTime: iso(end),
    });
    const attempt = (attempts.result as { testAttempts: Array<{ testInvitationId: number }> })
      .testAttempts[0]!;
    await call("getReport", `/v3/reports/${attempt.testInvitationId}`);
    await call("processCallbacks", "/v3/callbacks/process", {
      testinvitationIds: [attempt.testInvitationId],
    });
    await call("invite", `/v3/tests/${testId}/invite`, { emailId: "ada@example.com", fullName: "Ada" });
    await call("createUser", "/v3/accounts/user/create", { email: "not-an-email", fullName: "Ada" }); // 400
    const employees = await call("listEmployees", "/employees?PageNumber=1&PageSize=5");
    const employeeId = (employees.items as Array<{ employeeId: number }>)[0]!.employeeId;
    await call("listSkillsProfiles", "/employees/skills-profile?PageNumber=1&PageSize=5");
    await call("getSkillsProfile", `/employees/${employeeId}/skills-profile`);
    await call("listCertificates", `/employees/${employeeId}/certificates?includeSkills=true`);
    await call("getSkillGap", `/employees/${employeeId}/skill-gap`);
    await call("upsertEmployees", "/employees/upsert", [{ email: "grace@example.com", firstName: "Grace" }]);
    await call("getSkillGap", "/employees/999999999/skill-gap"); // 404
    expect(problems).toEqual([]);
    expect([...statuses].sort((a, b) => a - b)).toEqual([200, 201, 400, 403, 404]);
  });
});
