/**
 * The replay corpus (fixtures/real/): a server answers with the real service's documented samples, and the CLI
 * (main, in-process) runs every command that uses each one, with a table and with `--json`. Each exits
 * 0 or its documented error code (README: exit codes), shows the sample's values, and `--json` loses no field: it prints the
 * record (or the list) exactly as the sample holds it, envelope aside.
 *
 * The sample under test is named by the base URL's first path segment (`http://127.0.0.1:N/<sample>/v3/tests`),
 * so the cases run concurrently against one server; every other route answers with its operation's first 2xx
 * sample (a command that reads before it writes meets the real answer at both steps).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/api/operations/index.js";
import { ROOT } from "../bulk/helpers.js";
import { runCli } from "../helpers/cli.js";

const REAL = join(ROOT, "fixtures", "real");

interface Sample {
  file: string;
  operation: string;
  method: string | null;
  path: string | null;
  status: number | null;
  contentType: string;
  kind: "response" | "request" | "notification";
  source: string;
  origin: "documented" | "written";
}
const samples: Sample[] = JSON.parse(readFileSync(join(REAL, "samples.json"), "utf8"));
const responses = samples.filter((sample) => sample.kind === "response");
const body = (sample: Sample) => readFileSync(join(REAL, sample.file));
const json = (sample: Sample): unknown => JSON.parse(body(sample).toString("utf8"));

/** What `--json` prints of an answer: the record or list inside its envelope, as the sample has it. */
type Shown = "record" | "list" | "other";

interface Case {
  argv: string[];
  /** The values a person sees in the table (the sample's own values). */
  shows: string[];
  /**
   * Where `shows` must appear: the table (default), or tab-separated values for a command whose records are
   * wider than a terminal (its table leaves columns out, as gh's do; tsv keeps every column).
   */
  showsIn?: "tsv";
  json: Shown;
  /** Where the list or record sits inside the sample (`result.testAttempts`). */
  inside?: string;
  /** Exit code on success when not 0. */
  exit?: number;
  /** Fields `--json` adds where the answer has none (invite send's status, Pending). */
  added?: Record<string, unknown>;
}

const tmp = mkdtempSync(join(tmpdir(), "assess-replay-"));
const file = (name: string, content: string) => {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
};

/** The commands that use each operation, with the values their tables must show for the given sample. */
function casesFor(sample: Sample): Case[] {
  const main = caseFor(sample);
  if (!main) return [];
  const extra: Case[] = [];
  if (sample.operation === "listAttempts" || sample.operation === "getReport") {
    // One row per attempt of the period, each with its report: both answers meet here.
    extra.push({
      argv: ["reports", "export", "--from", "2020-06-01", "--to", "2020-06-20"],
      shows: sample.operation === "getReport" ? ["2894725", "Complete", "Section: Core Java"] : [],
      showsIn: "tsv",
      json: "other",
    });
  }
  if (sample.operation === "listAttempts") {
    extra.push({
      argv: ["callbacks", "resend", "--from", "2020-06-01", "--to", "2020-06-20"],
      shows: [],
      json: "other",
    });
  }
  if (sample.operation === "updateLink") {
    extra.push({
      argv: ["links", "deactivate", "201044", "--test", "303076"],
      shows: ["201044"],
      json: "other",
    });
  }
  return [main, ...extra];
}

function caseFor(sample: Sample): Case | undefined {
  const id = "2894725";
  switch (sample.operation) {
    case "listTests":
      return {
        argv: ["tests", "list"],
        shows: ["1134601", "Java Developer Test", "Published"],
        json: "list",
        inside: "tests",
      };
    case "getTest":
      return {
        argv: ["tests", "get", "1134601"],
        shows: ["Java Developer Test", "Core Java", "Coding"],
        json: "record",
      };
    case "getSettings":
      return { argv: ["tests", "settings", "get", "1134601"], shows: ["A11"], json: "record" };
    case "updateSettings":
      return {
        argv: ["tests", "settings", "set", "1134601", "--random-questions", "yes"],
        shows: ["updated"],
        json: "other",
      };
    case "invite":
      return {
        argv: ["invite", "send", "--test", "1134601", "--email", "ada@example.com", "--name", "Ada"],
        shows: ["2807324", "https://test.interviewmocha.com/IMInstructions?bk1kdWNyYXdudzN", "Pending"],
        json: "record",
        added: { status: "Pending" },
      };
    case "inviteThroughLink":
      return {
        argv: [
          "invite",
          "link",
          "--test",
          "1134601",
          "--link",
          "201044",
          "--email",
          "ada@example.com",
          "--name",
          "Ada",
        ],
        shows: ["3178622", "Pending"],
        json: "record",
      };
    case "bulkInvite":
      return {
        argv: ["invite", "bulk", join(ROOT, "fixtures", "candidates.csv"), "--test", "1134601"],
        shows: ["sent"],
        json: "other",
      };
    case "cancelInvitation":
      return { argv: ["invite", "cancel", "2932950"], shows: ["2932950", "cancelled"], json: "record" };
    case "reattempt":
      return {
        argv: ["invite", "reattempt", id],
        shows: sample.file.includes("values") ? ["2894726"] : [],
        json: "record",
      };
    case "getReport":
      return {
        argv: ["reports", "get", id],
        shows: [id, "Suhas Kurade", "Complete", "Intermediate"],
        json: "record",
      };
    case "getReportPdf":
      return {
        argv: ["reports", "pdf", id, "--out", join(tmp, `report-${sample.file.replace(/\W/g, "")}.pdf`)],
        shows: [],
        json: "other",
      };
    case "listAttempts":
      return {
        argv: ["attempts", "list", "--from", "2020-06-01", "--to", "2020-06-20"],
        shows: sample.file.includes("apimd") ? [] : ["2655161", "May", "Suhas Kurade", "Completed"],
        json: "list",
        inside: "result.testAttempts",
      };
    case "processCallbacks":
      return {
        argv: ["callbacks", "resend", "2631727", "2633244", "2633386", "--restart"],
        shows: ["3"],
        json: "other",
      };
    case "listLinks":
      return {
        argv: ["links", "list", "--test", "303076"],
        shows: ["201044", "Email Invite", "validityindays"],
        json: "list",
        inside: "testLinks",
      };
    case "getLink":
      return {
        argv: ["links", "get", "201044", "--test", "303076"],
        shows: ["201044", "Email Invite", "1720"],
        json: "record",
      };
    case "createLink":
      return {
        argv: [
          "links",
          "create",
          "--test",
          "1134601",
          "--name",
          "ashish123",
          "--type",
          "email",
          "--schedule",
          "validityindays",
          "--validity-days",
          "7",
          "--timezone",
          "200",
        ],
        shows: ["201046", "ashish123", "5b7e90c4"],
        json: "record",
      };
    case "updateLink":
      return {
        argv: ["links", "update", "201044", "--test", "303076", "--name", "Renamed"],
        shows: ["201044"],
        json: "record",
      };
    case "createUser":
      return {
        argv: ["users", "create", "--email", "user@example.com", "--name", "Test User"],
        shows: ["user@example.com", "170867"],
        json: "record",
      };
    case "updateUser":
      return {
        argv: ["users", "update", "--email", "user@example.com", "--business-unit", "170867"],
        shows: ["170867"],
        json: "record",
      };
    case "setUserStatus":
      return {
        argv: ["users", "activate", "--email", "user@example.com"],
        shows: ["Active", "170867"],
        json: "record",
      };
    case "maskCandidate":
      return {
        argv: ["gdpr", "mask", "--email", "user@example.com", "--yes"],
        shows: ["Request accepted for processing"],
        json: "other",
      };
    case "listBusinessUnits":
      return { argv: ["api", "GET", "/v3/accounts/business-units"], shows: [], json: "other" };
    case "listEmployees":
      return {
        argv: ["employees", "list"],
        shows: ["123456", "An Nguyen", "Engineering"],
        json: "list",
        inside: "items",
      };
    case "listSkillsProfiles":
      return {
        argv: ["employees", "skills-profiles"],
        shows: ["123457", "Binh Tran", "AI Agent"],
        json: "list",
        inside: "items",
      };
    case "getSkillsProfile":
      return {
        argv: ["employees", "skills", "123457"],
        shows: ["Binh Tran", "AI Agent", "Technical Skill"],
        json: "record",
      };
    case "upsertEmployees":
      return {
        argv: ["employees", "upsert", join(ROOT, "fixtures", "employees.csv"), "--restart"],
        shows: ["Email address is in invalid format"],
        json: "other",
        exit: 3,
      };
    case "listCertificates":
      return {
        argv: ["employees", "certificates", "123456"],
        shows: ["601", "Python Certificate", "Example Learning"],
        json: "list",
        inside: "items",
      };
    case "setEmployeeStatus":
      return { argv: ["employees", "status", "123456", "Inactive"], shows: ["Inactive"], json: "record" };
    case "getEmployeeReport":
      return {
        argv: ["employees", "report", "123456", "--test", "1346106"],
        shows: ["13898820", "Soft Skill Assessment"],
        json: "record",
      };
    case "addCertificate":
      return {
        argv: [
          "employees",
          "add-certificate",
          "123456",
          "--title",
          "AWS Certified Solutions Architect - Associate",
          "--issuer",
          "Amazon Web Services",
        ],
        shows: ["602", "Amazon Web Services"],
        json: "record",
      };
    case "uploadResume":
      return {
        argv: ["employees", "upload-resume", "123456", file("cv.pdf", "%PDF-1.4 cv")],
        shows: ["an-nguyen-cv.pdf", "Python", "SQL"],
        json: "record",
      };
    case "assignLearning":
      return {
        argv: ["employees", "assign-learning", "123456", "--resource", "501"],
        shows: ["123456"],
        json: "record",
      };
    case "getSkillGap":
      return { argv: ["employees", "skill-gap", "123457"], shows: ["AI Agent", "4"], json: "record" };
    case "error":
      return { argv: ["tests", "list", "--retries", "0"], shows: [], json: "other" };
    default:
      return undefined;
  }
}

/** The CLI's exit codes for a service error; the 401 of process-callbacks naming ids is a per-id failure. */
function exitFor(sample: Sample, kase: Case): number {
  const status = sample.status ?? 200;
  if (status < 300) return kase.exit ?? 0;
  if (sample.operation === "processCallbacks" && status === 401) return 3;
  return status === 401 || status === 403 ? 4 : 1;
}

/** The messages a person must see for an error sample: the body's own words. */
function messagesOf(sample: Sample): string[] {
  const text = body(sample).toString("utf8");
  if (sample.contentType.includes("html")) return [/<title>([^<]*)<\/title>/.exec(text)?.[1] ?? ""];
  if (!sample.contentType.includes("json")) return [text.trim()];
  const data = JSON.parse(text) as { errors?: unknown[]; message?: string; Message?: string };
  if (Array.isArray(data.errors)) return [String(data.errors[0])];
  const message = data.message ?? data.Message;
  if (!message) throw new Error(`${sample.file}: no message to look for`);
  return [message];
}

function at(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  return path
    .split(".")
    .reduce<unknown>((current, key) => (current as Record<string, unknown>)?.[key], value);
}

// The replay server.

const ROUTE_LIST = Object.entries(OPERATIONS).map(([operation, { method, path: template }]) => {
  const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
  return { operation, method, pattern };
});
const firstOk = new Map<string, Sample>();
for (const sample of responses) {
  if ((sample.status ?? 0) < 300 && !firstOk.has(sample.operation)) firstOk.set(sample.operation, sample);
}
firstOk.set("getReportPdf", { ...responses[0]!, file: "", contentType: "application/pdf", status: 200 });

let server: http.Server;
let origin: string;
const requests: { sample: string; method: string; path: string; body: string }[] = [];

function startReplay(): Promise<void> {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://replay");
    const [, key, ...rest] = url.pathname.split("/");
    const path = `/${rest.join("/")}`.replace(/^\/skills\//, "/");
    const sample = responses.find((s) => s.file === decodeURIComponent(key ?? ""));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({
        sample: sample?.file ?? "",
        method: req.method ?? "",
        path,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const route = ROUTE_LIST.find((r) => r.method === req.method && r.pattern.test(path));
      const operation =
        route?.operation ?? (path === "/v3/accounts/business-units" ? "listBusinessUnits" : undefined);
      const chosen =
        sample && (sample.operation === operation || sample.operation === "error")
          ? sample
          : firstOk.get(operation ?? "");
      if (!chosen) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"statusCode":404,"message":"no sample"}');
        return;
      }
      const payload = chosen.file === "" ? Buffer.from("%PDF-1.4 replay") : body(chosen);
      res.writeHead(chosen.status ?? 200, {
        "content-type": chosen.contentType,
        "content-length": payload.length,
      });
      res.end(payload);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
}

beforeAll(async () => {
  await startReplay();
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

async function cli(
  sample: Sample,
  argv: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = `${origin}/${encodeURIComponent(sample.file)}`;
  const env = {
    ASSESS_BASE_URL: base,
    ASSESS_SKILLS_BASE_URL: `${base}/skills`,
    ASSESS_API_KEY: "replay-key-0000",
    ASSESS_CONFIG_DIR: mkdtempSync(join(tmp, "config-")),
    CI: "true",
  };
  return runCli(argv, { env });
}

describe("the corpus", () => {
  it("has a response sample for every operation of the table, and each names its source", () => {
    const covered = new Set(responses.map((sample) => sample.operation));
    for (const operation of Object.keys(OPERATIONS)) expect(covered, operation).toContain(operation);
    for (const sample of samples) {
      expect(sample.source, sample.file).toMatch(/\S/);
      expect(readFileSync(join(REAL, "README.md"), "utf8"), sample.file).toContain(sample.file);
    }
  });

  it("every response sample has a command that replays it", () => {
    for (const sample of responses) expect(casesFor(sample).length, sample.file).toBeGreaterThan(0);
  });
});

describe.concurrent("each real answer, through the CLI", () => {
  for (const sample of responses) {
    casesFor(sample).forEach((kase, n) => {
      const name = `${sample.file} (${sample.operation} ${sample.status}, ${sample.origin}): ${kase.argv.slice(0, 2).join(" ")}`;
      it(n === 0 ? name : `${name} (also uses it)`, async () => {
        const exit = exitFor(sample, kase);
        const table = await cli(sample, [...kase.argv, "-o", "table"]);
        const asJson = await cli(sample, [...kase.argv, "--json"]);
        const where = `${kase.argv.join(" ")}\n${table.stderr}`;

        expect(table.code, where).toBe(exit);
        expect(asJson.code, where).toBe(exit);
        expect(table.stderr).not.toMatch(/at .*\.cjs:\d+|This looks like a bug/);
        expect(`${table.stdout}${table.stderr}`).not.toContain("replay-key-0000");

        if ((sample.status ?? 200) >= 400 && !(sample.operation === "processCallbacks")) {
          for (const message of messagesOf(sample)) expect(table.stderr, where).toContain(message);
          const error = JSON.parse(asJson.stderr.trim().split("\n").at(-1) ?? "{}") as {
            error?: { status: number; messages: string[] };
          };
          expect(error.error?.status).toBe(sample.status);
          return;
        }

        const shown = kase.showsIn === "tsv" ? await cli(sample, [...kase.argv, "-o", "tsv"]) : table;
        for (const value of kase.shows) expect(`${shown.stdout}${shown.stderr}`, where).toContain(value);
        if (kase.json === "other") return;
        const data = json(sample);
        const printed = JSON.parse(asJson.stdout) as unknown;
        // Loses no field: exactly the sample's record or list, every field as the service sent it.
        expect(printed).toEqual(
          kase.json === "list" ? at(data, kase.inside) : { ...(data as object), ...kase.added },
        );
      });
    });
  }
});

describe("what is written back from a real answer", () => {
  it("settings set reads the grouped settings and sends the documented flat fields, the one flag changed", async () => {
    const sample = responses.find((s) => s.file === "tests/settings-update-201.json");
    if (!sample) throw new Error("no settings update sample");
    const result = await cli(sample, ["tests", "settings", "set", "1134601", "--copy-paste", "yes"]);
    expect(result.code, result.stderr).toBe(0);
    const sent = requests.filter((r) => r.sample === sample.file && r.method === "POST").at(-1);
    // fixtures/real/tests/settings-get-200.json, its groups (two levels deep) taken apart.
    expect(JSON.parse(sent?.body ?? "{}")).toEqual({
      testName: "A11",
      testAliasName: "A11",
      typeOfTest: 1,
      practiceTest: 1,
      randomQuestions: 0,
      randomAnswers: 0,
      showQuestionScore: 0,
      sectionEndPopup: 0,
      sectionTimeLeftAlert: 0,
      candidateFeedback: 0,
      sendTestReportEmailToCandidate: 0,
      terminateTestOnImageViolation: 0,
      terminateTestAfterViolationCount: 1,
      copyPaste: 1,
      displayViolationPopUp: 1,
      terminateTestOnWindowViolation: 1,
    });
  });
});
