/**
 * The tools of `assess mcp` against the table of operations (src/api/operations/): every operation is a tool or
 * declared out (src/mcp/operations.ts OFFERS), a read added to the table becomes a tool by itself, and what
 * tools/list shows of each tool (annotations, title, description, ids) is its record's. Then the derived
 * tools' query arguments and error hints, over stdio against the sandbox.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS, type OperationRecord, operations } from "../../src/api/operations/index.js";
import * as s from "../../src/api/schemas.js";
import { HOW_TO_CONFIRM } from "../../src/mcp/confirm.js";
import { OFFERS, operationTools } from "../../src/mcp/operations.js";
import { TOOLS } from "../../src/mcp/tools.js";
import { UNTRUSTED_NOTE } from "../../src/mcp/untrusted.js";
import * as z from "../../src/parse/zod.js";
import { SANDBOX_KEYS, type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { callTool, connectMcp } from "./helpers.js";

/** The annotations each effect gives (a read changes nothing; an overwrite may change or remove). */
const ANNOTATIONS = {
  read: { readOnlyHint: true },
  add: { readOnlyHint: false, destructiveHint: false },
  overwrite: { readOnlyHint: false, destructiveHint: true },
} as const;

const toolsOf = (operation: string) =>
  Object.entries(TOOLS)
    .filter(([, tool]) => tool.operation === operation)
    .map(([name]) => name);

describe("the tools and the table of operations", () => {
  it("every operation is a tool, or declared out with a reason or the composite tool that takes its place", () => {
    for (const [operation, record] of operations()) {
      const offer = OFFERS[operation];
      if (offer && "excluded" in offer) {
        expect(offer.excluded.length, operation).toBeGreaterThan(10);
        expect(toolsOf(operation), operation).toEqual([]);
      } else if (offer && "instead" in offer) {
        expect(TOOLS[offer.instead]?.operation, `${operation}: ${offer.instead}`).toBe(operation);
      } else {
        // A read needs no entry; a write needs its --allow-writes group (or to be declared out).
        const name = offer?.name ?? operation.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
        expect(TOOLS[name]?.operation, `${operation} is no tool: offer it or declare it out in OFFERS`).toBe(
          operation,
        );
        expect(TOOLS[name]!.writes === undefined, name).toBe(record.effect === "read");
      }
    }
  });

  it("a read added to the table becomes a tool with no other edit; a write only once given a group", () => {
    const getWidget: OperationRecord = {
      method: "GET",
      path: "/v3/tests/{testId}/widgets/{testLinkId}",
      resource: "widgets",
      verb: "get",
      summary: "Get a widget",
      tag: "tests",
      description: "One widget of a test link, with its parts if asked.",
      effect: "read",
      query: [{ name: "deep", schema: { type: "boolean" }, description: "include its parts" }],
      read: (answer) => answer.data,
    };
    const listWidgets: OperationRecord = {
      ...getWidget,
      path: "/v3/widgets",
      verb: "list",
      summary: "List widgets",
      query: undefined,
      pagination: { page: "pageNo", size: "pageSize", items: s.Test, keys: ["widgets"], what: "widgets" },
    };
    const addWidget: OperationRecord = { ...getWidget, method: "POST", effect: "add", body: s.GdprBody };
    const table = [
      ["getWidget", getWidget],
      ["listWidgets", listWidgets],
      ["addWidget", addWidget],
    ] as const;
    const tools = operationTools(table);
    expect(Object.keys(tools)).toEqual(["get_widget", "list_widgets"]);
    expect(tools.get_widget).toMatchObject({
      operation: "getWidget",
      title: "Get a widget",
      description: getWidget.description,
      effect: "read",
    });
    expect(tools.get_widget!.writes).toBeUndefined();
    expect(z.toJSONSchema(tools.get_widget!.input())).toMatchObject({
      required: ["testId", "testLinkId"],
      properties: {
        testId: { type: "integer", description: expect.stringContaining("list_tests") },
        testLinkId: { type: "integer", description: expect.stringContaining("list_test_links") },
        deep: { type: "boolean", description: "Include its parts" },
      },
      additionalProperties: false,
    });
    expect(Object.keys(z.toJSONSchema(tools.list_widgets!.input()).properties ?? {})).toEqual([
      "cursor",
      "pageSize",
    ]);
    const noReader = { ...getWidget, read: undefined };
    expect(() => operationTools([["getBlob", noReader]])).toThrow(
      /getBlob has no reader .*src\/mcp\/operations\.ts/,
    );
  });
});

describe("tools/list of `assess mcp --allow-writes`", () => {
  let sandbox: Sandbox;
  let configDir: string;
  let env: Record<string, string>;
  let client: Client;

  beforeAll(async () => {
    sandbox = await startSandbox({ assessPrefix: "/api", skillsPrefix: "/skills" });
    configDir = mkdtempSync(join(tmpdir(), "assess-mcp-tools-"));
    env = {
      PATH: process.env.PATH ?? "",
      NO_COLOR: "1",
      ASSESS_BASE_URL: sandbox.url,
      ASSESS_SKILLS_BASE_URL: sandbox.skillsUrl,
      ASSESS_API_KEY: SANDBOX_KEYS.acme,
      ASSESS_CONFIG_DIR: configDir,
    };
    client = await connectMcp(env, ["--allow-writes"]);
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it("shows each tool's annotations as its record's effect says, and a derived tool's words and ids as its record's", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOLS).sort());
    for (const listed of tools) {
      const tool = TOOLS[listed.name]!;
      const effect = tool.operation ? OPERATIONS[tool.operation].effect : tool.effect;
      expect(listed.annotations, listed.name).toMatchObject(ANNOTATIONS[effect]);
      if (effect === "read") expect(listed.annotations?.destructiveHint, listed.name).toBeUndefined();
      const record: OperationRecord | undefined = tool.operation ? OPERATIONS[tool.operation] : undefined;
      const offer = tool.operation ? OFFERS[tool.operation] : undefined;
      const composite =
        !record || (offer !== undefined && "instead" in offer) || listed.name === "set_test_link_status";
      if (composite) continue;
      expect(listed.title, listed.name).toBe(record.summary);
      // Its record's words; an overwrite's how to confirm it; and that its answer is marked untrusted.
      const confirm = effect === "overwrite" ? HOW_TO_CONFIRM : "";
      expect(listed.description, listed.name).toBe(`${record.description}${confirm}${UNTRUSTED_NOTE}`);
      const ids = [...record.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(listed.inputSchema.required ?? [], listed.name).toEqual(expect.arrayContaining(ids));
    }
  });

  it("a derived tool's query parameters are arguments: get_report's reportType, list_certificates' includeSkills", async () => {
    const to = `${new Date().toISOString().slice(0, 19)}Z`;
    const attempts = await callTool(client, "list_attempts", { from: "60d", to, limit: 1 });
    const [attempt] = attempts.data.items as Array<{ testInvitationId: number }>;
    expect(attempt).toBeDefined();
    const before = sandbox.requests.at(-1)?.seq ?? 0;
    const report = await callTool(client, "get_report", {
      testInvitationId: attempt!.testInvitationId,
      reportType: 3,
    });
    expect(report.result.isError, report.text).toBeFalsy();
    const sent = sandbox.requests.filter((r) => r.seq > before && r.path.startsWith("/v3/reports/"));
    expect(sent.map((r) => r.query)).toEqual([{ reportType: "3" }]);
    const cliReport = await runCli(
      ["reports", "get", String(attempt!.testInvitationId), "--type", "3", "--json"],
      { env },
    );
    expect(cliReport.code, cliReport.stderr).toBe(0);
    expect(report.data).toEqual(cliReport.json());
    const badType = await callTool(client, "get_report", { testInvitationId: 1, reportType: 4 });
    expect(badType.text).toMatch(/^Invalid arguments for get_report: reportType/);

    const employees = await callTool(client, "list_employees", { pageSize: 1 });
    const [employee] = employees.data.items as Array<{ employeeId?: number; id?: number }>;
    const employeeId = employee!.employeeId ?? employee!.id;
    const certificates = await callTool(client, "list_certificates", { employeeId, includeSkills: true });
    const cli = await runCli(["employees", "certificates", String(employeeId), "--with-skills", "--json"], {
      env,
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(certificates.data.items).toEqual(cli.json());
  });

  it("a paged tool declares the page it answers, which the SDK's client checks, an error's answer too", async () => {
    const { tools } = await client.listTools();
    const paged = tools.filter((tool) => {
      const operation = TOOLS[tool.name]!.operation;
      return operation !== undefined && "pagination" in OPERATIONS[operation];
    });
    expect(paged.map((tool) => tool.name).sort()).toEqual([
      "list_employees",
      "list_skills_profiles",
      "list_tests",
    ]);
    expect(
      tools
        .filter((tool) => tool.outputSchema)
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(paged.map((tool) => tool.name).sort());
    for (const { name } of paged) {
      // client.callTool throws when structuredContent does not fit the tool's outputSchema.
      const first = await callTool(client, name, { pageSize: 2 });
      expect(first.result.isError, first.text).toBeFalsy();
      expect(first.data).toMatchObject({ page: 1, items: expect.any(Array), nextCursor: expect.any(String) });
      const next = await callTool(client, name, { cursor: first.data.nextCursor });
      expect(next.data.page, name).toBe(2);
      const refused = await callTool(client, name, { cursor: "elsewhere" });
      expect(refused.result.isError, name).toBe(true);
    }
  });

  it("every argument of every tool is described, and the words are the answers' and the schema's", async () => {
    const { tools } = await client.listTools();
    const undescribed: string[] = [];
    /** Each property of an object schema, and of the objects in its arrays, at its path. */
    const walk = (schema: Record<string, unknown>, path: string) => {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [name, property] of Object.entries(properties)) {
        const at = `${path}.${name}`;
        if (typeof property.description !== "string" || property.description.length < 8) undescribed.push(at);
        const items = property.items as Record<string, unknown> | undefined;
        for (const inner of [property, items ?? {}]) {
          for (const variant of [inner, ...((inner.anyOf as Array<Record<string, unknown>>) ?? [])])
            if (variant.type === "object") walk(variant, at);
        }
      }
    };
    for (const tool of tools) walk(tool.inputSchema, tool.name);
    expect(undescribed).toEqual([]);

    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const reportType = byName.get("get_report")!.inputSchema.properties!.reportType as {
      description: string;
    };
    expect(reportType.description).toMatch(/1 sections, 2 skills, 3 both/);
    // The listing's answers (the real service's shape, as the sandbox gives it) carry testStatus.
    const listing = await callTool(client, "list_attempts", { from: "60d", to: "now", limit: 1 });
    const [attempt] = listing.data.items as Array<Record<string, unknown>>;
    expect(Object.keys(attempt!)).toContain("testStatus");
    expect(byName.get("list_attempts")!.description).toContain("testStatus");
    // set_employee_status: its words and its argument name the four statuses its schema takes.
    const setStatus = byName.get("set_employee_status")!;
    const status = setStatus.inputSchema.properties!.status as { enum: string[] };
    expect(status.enum).toEqual(["Active", "Inactive", "OnLeave", "Exited"]);
    for (const value of status.enum) expect(setStatus.description).toContain(value);
  });

  it("invite_candidate without an e-mail or a name is refused, naming the argument, and nothing is sent", async () => {
    const before = sandbox.requests.at(-1)?.seq ?? 0;
    const noEmail = await callTool(client, "invite_candidate", { testId: 1001, fullName: "Ada Lovelace" });
    expect(noEmail.result.isError).toBe(true);
    expect(noEmail.text).toMatch(/^Invalid arguments for invite_candidate: emailId: /);
    const noName = await callTool(client, "invite_candidate", { testId: 1001, emailId: "ada@example.com" });
    expect(noName.result.isError).toBe(true);
    expect(noName.text).toMatch(/^Invalid arguments for invite_candidate: fullName: /);
    const throughLink = await callTool(client, "invite_through_link", { testId: 1001, testLinkId: 1 });
    expect(throughLink.text).toMatch(/emailId: .*; fullName: /);
    expect(sandbox.requests.filter((r) => r.seq > before)).toEqual([]);
    const { tools } = await client.listTools();
    for (const name of ["invite_candidate", "invite_through_link"]) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.inputSchema.required, name).toEqual(expect.arrayContaining(["emailId", "fullName"]));
    }
  });

  it("a period's errors name the tool's arguments, not the CLI's flags", async () => {
    const reversed = await callTool(client, "list_attempts", { from: "now", to: "7d" });
    expect(reversed.result.isError).toBe(true);
    expect(reversed.text).toMatch(/^to \(.*\) is before from \(/);
    const stats = await callTool(client, "report_stats", { from: "now", to: "30d" });
    expect(stats.text).toMatch(/^to \(.*\) is before from \(/);
    for (const { text } of [reversed, stats]) expect(text).not.toMatch(/--[a-z]/);
  });

  it("error hints name the tool that gives an id, never a CLI command", async () => {
    const hints: string[] = [];
    const hintOf = async (name: string, args: Record<string, unknown>) => {
      const { result, data } = await callTool(client, name, args);
      expect(result.isError, name).toBe(true);
      const hint = (data.error as { hint?: string }).hint ?? "";
      hints.push(hint);
      return hint;
    };
    expect(await hintOf("get_test_link", { testId: 1001, testLinkId: 987654 })).toContain(
      "list_test_links gives testLinkId",
    );
    expect(await hintOf("get_report", { testInvitationId: 987654321 })).toContain(
      "list_attempts gives testInvitationId",
    );
    expect(await hintOf("get_test", { testId: 2001 })).toContain("list_tests gives testId");
    for (const hint of hints) expect(hint).not.toMatch(/`assess|(^|\s)--[a-z]/);
  });
});
