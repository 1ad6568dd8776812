/**
 * The table of operations (src/api/operations/) is what the OpenAPI document and the SDK's client
 * are derived from; restructuring it must not change what users see. This compares `assess openapi` (YAML and
 * JSON) and the SDK's declarations (dist/types/, from `npm run build`, which the global setup runs) with the
 * committed copies in fixtures/surface/. A deliberate change rewrites them: `UPDATE_SURFACE=1 npx vitest run
 * test/api/surface.test.ts`, and the diff of the copies goes in the commit.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, runCli } from "../helpers/cli.js";

const SURFACE = join(ROOT, "fixtures", "surface");
const TYPES = join(ROOT, "dist", "types");
const UPDATE = process.env.UPDATE_SURFACE === "1";

const configDir = mkdtempSync(join(tmpdir(), "assess-surface-"));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
const env = {
  ASSESS_CONFIG_DIR: configDir,
  ASSESS_BASE_URL: "https://assess.example/api",
  ASSESS_SKILLS_BASE_URL: "https://skills.example",
};

function files(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    })
    .sort();
}

/** The committed copy at `name`, or (UPDATE_SURFACE=1) `actual` written there. */
function committed(name: string, actual: string): string {
  const path = join(SURFACE, name);
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  return readFileSync(path, "utf8");
}

describe("what the table of operations is shown as", () => {
  it("assess openapi --format json is byte for byte the committed document", async () => {
    const result = await runCli(["openapi", "--format", "json"], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(10_000);
    expect(result.stdout).toBe(committed("openapi.json", result.stdout));
  });

  it("assess openapi (YAML) is that same document", async () => {
    const result = await runCli(["openapi"], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^openapi: 3\.1/);
    expect(parse(result.stdout)).toEqual(JSON.parse(readFileSync(join(SURFACE, "openapi.json"), "utf8")));
  });

  it("the SDK's declarations (dist/types) are byte for byte the committed ones, file for file", () => {
    const built = files(TYPES).map((file) => relative(TYPES, file));
    const esm = built.filter((name) => name.endsWith(".d.ts"));
    const names = UPDATE
      ? esm
      : files(join(SURFACE, "types")).map((f) => relative(join(SURFACE, "types"), f));
    if (UPDATE) rmSync(join(SURFACE, "types"), { recursive: true, force: true });
    expect(esm).toContain(join("sdk", "index.d.ts"));
    expect(esm).toEqual(names);
    // Each .d.ts has its .d.cts for `require`: the same, importing the other .d.cts files.
    expect(built).toEqual([...esm.flatMap((name) => [name.replace(/\.d\.ts$/, ".d.cts"), name])].sort());
    for (const name of esm) {
      const text = readFileSync(join(TYPES, name), "utf8");
      const expected = committed(join("types", name), text);
      expect(text, name).toBe(expected);
      const required = expected.replace(/^((?:import|export)\s[^;]*?\bfrom\s+"\.[^"]*)\.js"/gm, '$1.cjs"');
      expect(readFileSync(join(TYPES, name.replace(/\.d\.ts$/, ".d.cts")), "utf8"), name).toBe(required);
    }
  });
});
