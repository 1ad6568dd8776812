/**
 * The SDK's bundles (src/build.mjs) stand alone: zod and undici inside, nothing of the CLI's command-line
 * libraries (commander, the prompts, chalk), none of the CLI's chunks; and its declarations import nothing a
 * consumer lacks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const DIST = join(import.meta.dirname, "..", "..", "dist");
const BUNDLES = ["sdk.mjs", "sdk.cjs"];
/** What each library leaves in a bundle that holds it: its own error class or identifier. */
const SIGNS: Record<string, RegExp> = {
  commander: /class CommanderError|node_modules\/commander/,
  "@inquirer/prompts": /ExitPromptError|node_modules\/@inquirer/,
  chalk: /chalkStderr|node_modules\/chalk/,
};

describe("the SDK bundles", () => {
  const meta = JSON.parse(readFileSync(join(DIST, "sdk-meta.json"), "utf8")) as { inputs: string[] };
  const packages = new Set(
    meta.inputs.flatMap((input) => {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      return match ? [match[1]!] : [];
    }),
  );

  it("hold zod and undici, and none of commander, the prompts or chalk", () => {
    expect(packages.has("zod")).toBe(true);
    expect(packages.has("undici")).toBe(true);
    for (const name of ["commander", "chalk", "cli-table3", "csv-parse", "conf"]) {
      expect(packages.has(name), name).toBe(false);
    }
    expect([...packages].filter((name) => name.startsWith("@inquirer"))).toEqual([]);
  });

  it("have none of those libraries' code in their text, and load none of the CLI's chunks", () => {
    for (const bundle of BUNDLES) {
      const text = readFileSync(join(DIST, bundle), "utf8");
      for (const [name, sign] of Object.entries(SIGNS))
        expect(sign.test(text), `${bundle}: ${name}`).toBe(false);
      // Whole in itself: no require or import of another file of dist/.
      expect(text).not.toMatch(/require\("\.\/|from "\.\/|import\("\.\//);
      expect(text).toContain("createClient");
    }
  });

  it("the signs would be found: the CLI's own chunks hold each of those libraries", () => {
    const cli = readdirSync(DIST)
      .filter((file) => file.endsWith(".cjs") && !BUNDLES.includes(file))
      .map((file) => readFileSync(join(DIST, file), "utf8"));
    for (const [name, sign] of Object.entries(SIGNS)) {
      expect(
        cli.some((text) => sign.test(text)),
        name,
      ).toBe(true);
    }
  });

  it("its declarations import only each other", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    const declarations = files(join(DIST, "types"));
    expect(declarations.map((file) => file.slice(DIST.length))).toContain("/types/sdk/index.d.ts");
    for (const file of declarations) {
      const specs = [
        ...readFileSync(file, "utf8").matchAll(/^(?:import|export)\s[^;]*?\bfrom\s+"([^"]+)"/gm),
      ].map((m) => m[1]!);
      expect(
        specs.filter((spec) => !spec.startsWith(".")),
        file,
      ).toEqual([]);
    }
  });
});
