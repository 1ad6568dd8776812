/**
 * Issue 16: `assess openapi` prints an OpenAPI 3.1 document of both services, generated from the client's zod
 * schemas. It must validate (@readme/openapi-parser, which checks 3.1 against its JSON Schema and more), and
 * name every route of the one table of routes (ROUTES) with its method, path and parameters.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validate } from "@readme/openapi-parser";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ROUTES } from "../../src/api/endpoints.js";
import { openApiDocument } from "../../src/api/openapi.js";
import { runCli } from "../helpers/cli.js";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
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

  it("has every operation of ROUTES once, with its method, path and path parameters", () => {
    expect(operations).toHaveLength(Object.keys(ROUTES).length);
    for (const [operationId, route] of Object.entries(ROUTES)) {
      const [method, path] = route.split(" ") as [string, string];
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
      expect(Object.keys(op.responses).sort(), op.operationId).toEqual([
        "200",
        "400",
        "401",
        "403",
        "404",
        "429",
      ]);
    }
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

  it("refuses another format with a usage error (exit 2)", async () => {
    const r = await runCli(["openapi", "--format", "xml"], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });
});
