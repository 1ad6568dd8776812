/**
 * The SDK as a consumer gets it: `npm pack`, the tarball installed into an empty project (offline: the package
 * has no runtime dependencies), a TypeScript consumer compiled with `tsc --strict` (module nodenext, the
 * package's declarations checked too) and run against a sandbox: as an ES module, and as CommonJS from a `.cts`
 * file under module node16, which reads the package's `require` declarations as CommonJS.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, expect, it } from "vitest";
import { SANDBOX_KEYS } from "../../src/sandbox/index.js";
import { ROOT, useTempDir, useTestEnv } from "../helpers/cli.js";

const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

const t = useTestEnv();
const tmp = useTempDir("assess-sdk-pack-");
let project: string;

beforeAll(async () => {
  // dist/ is built once for the whole suite; --ignore-scripts keeps prepack from rebuilding it under other tests.
  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", tmp.dir], {
    cwd: ROOT,
    stdio: "pipe",
  });
  const tarball = readdirSync(tmp.dir).find((f) => /^assess-cli-\d.*\.tgz$/.test(f));
  expect(tarball).toBeDefined();
  project = tmp.file("consumer");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", tmp.file(tarball!)], {
    cwd: project,
    stdio: "pipe",
  });
});

const CONSUMER = `
import { AssessApiError, type AssessClient, AssessUsageError, createClient, type Invitation, type Test, type TestDetail } from "assess-cli";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(\`\${name} is not set\`);
  return value;
};

const client: AssessClient = createClient({
  apiKey: env("SDK_KEY"),
  baseUrl: env("SDK_BASE_URL"),
  skillsBaseUrl: env("SDK_SKILLS_URL"),
});

const tests: Test[] = [];
for await (const test of client.tests.iterate({ pageSize: 2 })) tests.push(test);
const testId: number = tests[0]!.testId;
// tests.get is typed as tests.list is: its fields are read without a cast.
const detail: TestDetail = await client.tests.get(testId);
const testName: string | null | undefined = detail.testName;
const sections: Array<string | null | undefined> = (detail.sections ?? []).map((s) => s.sectionName);

const invitation: Invitation = await client.invitations.create(testId, {
  emailId: env("SDK_EMAIL"),
  fullName: "Packed Consumer",
});
// The candidate takes the test (the sandbox's control endpoint plays the candidate).
const done = await fetch(\`\${env("SDK_BASE_URL")}/_sandbox/invitations/\${invitation.testInvitationId}/complete\`, {
  method: "POST",
});
if (!done.ok) throw new Error(\`completing the attempt: HTTP \${done.status}\`);
const report = await client.reports.get(invitation.testInvitationId);
const score: number | null | undefined = report.scorePercentage;

let refused: { status: number | undefined; messages: string[]; name: string; type: string } | undefined;
try {
  await client.tests.get(Number(env("SDK_OTHER_TEST")));
} catch (error) {
  if (error instanceof AssessApiError) {
    refused = { status: error.status, messages: error.messages, name: error.name, type: error.constructor.name };
  } else throw error;
}
let usage: { name: string; type: string } | undefined;
try {
  await client.attempts.list({ from: "not a date", to: "now" });
} catch (error) {
  if (error instanceof AssessUsageError) usage = { name: error.name, type: error.constructor.name };
  else throw error;
}
await client.close();
console.log(
  JSON.stringify({
    tests: tests.map((t) => t.testId),
    detail: { testName, sections },
    usage,
    invitation: invitation.testInvitationId,
    report: { id: report.testInvitationId, email: report.candidateEmail, score },
    refused,
  }),
);
`;

/**
 * Compiles the consumer, then runs it (not synchronously: the sandbox answers from this process). `cts`: a
 * `consumer.cts` in an ES module package, under module node16 (which, unlike nodenext since TypeScript 5.8,
 * refuses ES module declarations from CommonJS: TS1479).
 */
async function compileAndRun(name: string, module: "esm" | "cts") {
  const folder = join(project, name);
  mkdirSync(folder);
  writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }));
  // Top-level await is for ES modules; the CommonJS consumer wraps the same code in a function.
  const source = module === "esm" ? CONSUMER : wrapForCommonJs(CONSUMER);
  const file = module === "cts" ? "consumer.cts" : "consumer.ts";
  writeFileSync(join(folder, file), source);
  writeFileSync(
    join(folder, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: module === "cts" ? "node16" : "nodenext",
        moduleResolution: module === "cts" ? "node16" : "nodenext",
        target: "es2022",
        outDir: "out",
        // The consumer's own types of Node; the package brings none of its dependencies' types.
        typeRoots: [join(ROOT, "node_modules", "@types")],
        types: ["node"],
      },
      files: [file],
    }),
  );
  const tsc = spawnSync(process.execPath, [TSC, "-p", folder], { cwd: folder, encoding: "utf8" });
  expect(tsc.stdout + tsc.stderr, "tsc --strict").toBe("");
  expect(tsc.status).toBe(0);
  const out = join(folder, "out", module === "cts" ? "consumer.cjs" : "consumer.js");
  const run = await promisify(execFile)(process.execPath, [out], {
    cwd: folder,
    encoding: "utf8",
    timeout: 240_000,
    env: {
      PATH: process.env.PATH,
      HOME: folder,
      ASSESS_CONFIG_DIR: join(folder, "cfg"),
      SDK_KEY: SANDBOX_KEYS.acme,
      SDK_BASE_URL: t.sandbox.url,
      SDK_SKILLS_URL: t.sandbox.skillsUrl,
      SDK_EMAIL: `packed-${name}@example.com`,
      SDK_OTHER_TEST: "2001",
    },
  });
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as {
    tests: number[];
    detail: { testName: string; sections: string[] };
    usage?: { name: string; type: string };
    invitation: number;
    report: { id: number; email: string; score: number };
    refused?: { status: number; messages: string[]; name: string; type: string };
  };
}

function wrapForCommonJs(source: string): string {
  const lines = source.trim().split("\n");
  const imports = lines.filter((line) => line.startsWith("import "));
  const body = lines.filter((line) => !line.startsWith("import "));
  return `${imports.join("\n")}\n\nasync function main(): Promise<void> {\n${body.join("\n")}\n}\n\nmain().catch((error: unknown) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`;
}

it("compiles with tsc --strict against the packed package and runs as an ES module", async () => {
  const result = await compileAndRun("esm", "esm");
  expect(result.tests).toEqual([1001, 1002, 1003, 1004, 1005]);
  expect(result.report).toMatchObject({ id: result.invitation, email: "packed-esm@example.com" });
  expect(typeof result.report.score).toBe("number");
  // Test 2001 is the other demo account's.
  expect(result.refused?.status).toBe(403);
  expect(result.refused?.messages.length).toBeGreaterThan(0);
  expect(result.detail.testName).toBe("JavaScript Fundamentals");
  expect(result.detail.sections.length).toBeGreaterThan(0);
  // The error classes are at run time what they are exported and documented as.
  expect(result.refused).toMatchObject({ name: "AssessApiError", type: "AssessApiError" });
  expect(result.usage).toEqual({ name: "AssessUsageError", type: "AssessUsageError" });
  expect(t.sandbox.state.invitations.some((i) => i.testInvitationId === result.invitation)).toBe(true);
});

it("and as CommonJS (require) from the same package: a .cts file under module node16, whose TypeScript reads the package's require declarations as CommonJS", async () => {
  const result = await compileAndRun("cts", "cts");
  expect(result.report).toMatchObject({ id: result.invitation, email: "packed-cts@example.com" });
  expect(result.refused).toMatchObject({ status: 403, name: "AssessApiError" });
  expect(result.usage?.name).toBe("AssessUsageError");
  expect(result.detail.testName).toBe("JavaScript Fundamentals");
});
