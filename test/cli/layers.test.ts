/**
 * The one rule of imports between the layers of src/ (README, "Development"): a module imports only from its
 * own layer's folder or from a layer below it, never up and never sideways. The layers, bottom up, are below;
 * within bulk/, the engine knows nothing of the row formats, and its sending loop nothing of the engine's
 * storage (spool, key sets, dedupe). `npm run check:cycles` (madge) keeps the whole tree free of import circles.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../bulk/helpers.js";

const SRC = join(ROOT, "src");

/** Bottom up. A path is in the first entry that matches it: a file, or a folder (trailing slash). */
const LAYERS: Array<{ name: string; paths: string[] }> = [
  {
    name: "foundations",
    paths: [
      "errors.ts",
      "version.ts",
      "fields.ts",
      "escape.ts",
      "redact.ts",
      "new-file.ts",
      "arrays.ts",
      "identity.ts",
      "spec/",
    ],
  },
  { name: "parsers and files", paths: ["parse/", "files.ts"] },
  { name: "config and the sandbox", paths: ["config/", "sandbox/"] },
  { name: "the API client, and output", paths: ["api/", "output/"] },
  {
    name: "shared work under the CLI, the SDK and the MCP server (periods, stats, forwarding, resend)",
    paths: ["core/"],
  },
  { name: "bulk runs", paths: ["bulk/"] },
  { name: "the SDK: the typed client, by resource and verb", paths: ["sdk/"] },
  { name: "a command's connection: where its requests go, and its one client", paths: ["connection.ts"] },
  { name: "the command context: its streams and settings", paths: ["context.ts"] },
  { name: "prompts", paths: ["prompts/"] },
  { name: "commands", paths: ["commands/"] },
  { name: "the MCP server: the commands' operations as tools for assistants", paths: ["mcp/"] },
  {
    name: "the program's root, the process's runtime (V8 flags, code cache)",
    paths: ["program.ts", "tree.ts", "runtime/"],
  },
  { name: "the CLI", paths: ["cli.ts"] },
  { name: "the launcher and the build", paths: ["launch.ts", "build.mjs"] },
];

/**
 * The imports of commands/ from outside it that must be: the CLI's entry wiring, which builds the command tree
 * from the verbs' declarations (tree.ts, the build's list of verb files), and the `assess mcp` verbs (mcp.ts and
 * token/*.ts), declared with the same machinery (commands/shared/verb.ts and flags.ts); `assess mcp --http` says
 * why it cannot listen as `assess sandbox` does (commands/shared/listen.ts).
 */
const WIRING = new Set([
  "cli.ts -> commands/groups.ts",
  "program.ts -> commands/groups.ts",
  "build.mjs -> commands/verb-files.mjs",
  "tree.ts -> commands/groups.ts",
  "tree.ts -> commands/shared/completion-values.ts",
  "tree.ts -> commands/shared/flags.ts",
  "tree.ts -> commands/shared/verb.ts",
  "mcp/mcp.ts -> commands/shared/flags.ts",
  "mcp/mcp.ts -> commands/shared/verb.ts",
  "mcp/token/create.ts -> commands/shared/flags.ts",
  "mcp/token/create.ts -> commands/shared/verb.ts",
  "mcp/token/list.ts -> commands/shared/verb.ts",
  "mcp/token/revoke.ts -> commands/shared/flags.ts",
  "mcp/token/revoke.ts -> commands/shared/verb.ts",
  "mcp/http.ts -> commands/shared/listen.ts",
]);

/** The command group of a path relative to src/ (`attempts` of commands/attempts/watch.ts), if in one. */
function groupOf(path: string): string | undefined {
  return /^commands\/([^/]+)\//.exec(path)?.[1];
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

/** The layer of a path relative to src/, and the folder that is its unit (`api/`, `context.ts`). */
function placeOf(path: string): { level: number; unit: string } {
  for (const [level, layer] of LAYERS.entries()) {
    for (const unit of layer.paths) {
      if (unit.endsWith("/") ? path.startsWith(unit) : path === unit) return { level, unit };
    }
  }
  throw new Error(`src/${path} is in no layer: add it to LAYERS in test/cli/layers.test.ts`);
}

/** Relative imports of a source file, static and dynamic, resolved to paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.{1,2}\/[^"]+)"/gm),
    ...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g),
    ...text.matchAll(/\brequire\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g),
  ].map((m) => m[1]!);
  return specs.map((spec) =>
    relative(SRC, normalize(join(file, "..", spec)))
      .replace(/\.js$/, ".ts")
      .replace(/\.cjs$/, ".ts"),
  );
}

describe("imports between layers", () => {
  const sources = files(SRC).map((file) => ({ file, path: relative(SRC, file) }));

  it("every source file is in a layer", () => {
    for (const { path } of sources) expect(() => placeOf(path), path).not.toThrow();
  });

  it("go only down, or within one folder", () => {
    const wrong: string[] = [];
    for (const { file, path } of sources) {
      const from = placeOf(path);
      for (const target of importsOf(file)) {
        if (!target.startsWith("..") && target !== path) {
          const to = placeOf(target);
          if (to.unit !== from.unit && to.level >= from.level) {
            wrong.push(
              `src/${path} (${LAYERS[from.level]?.name}) imports src/${target} (${LAYERS[to.level]?.name})`,
            );
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("bulk's engine imports none of the row formats", () => {
    const wrong = sources
      .filter(({ path }) => path.startsWith("bulk/engine/"))
      .flatMap(({ file, path }) =>
        importsOf(file)
          .filter((target) => target.startsWith("bulk/rows/"))
          .map((target) => `src/${path} imports src/${target}`),
      );
    expect(wrong).toEqual([]);
  });

  it("bulk's sending loop sees the storage only through the checking pass", () => {
    const wrong = sources
      .filter(({ path }) => path === "bulk/engine/send.ts" || path === "bulk/engine/run.ts")
      .flatMap(({ file, path }) =>
        importsOf(file)
          .filter((target) => target.startsWith("bulk/storage/"))
          .map((target) => `src/${path} imports src/${target}`),
      );
    expect(wrong).toEqual([]);
    // The rule can fail: the checking pass itself does import them.
    const check = sources.find(({ path }) => path === "bulk/engine/check.ts")!;
    expect(importsOf(check.file).filter((target) => target.startsWith("bulk/storage/"))).not.toEqual([]);
  });

  it("nothing outside commands/ imports a command, but the CLI's wiring", () => {
    const wrong = sources
      .filter(({ path }) => !path.startsWith("commands/"))
      .flatMap(({ file, path }) =>
        importsOf(file)
          .filter((target) => target.startsWith("commands/") && !WIRING.has(`${path} -> ${target}`))
          .map((target) => `src/${path} imports src/${target}`),
      );
    expect(wrong).toEqual([]);
  });

  it("no command group imports another: what groups share is in commands/shared/ or below commands/", () => {
    const wrong = sources
      .filter(({ path }) => groupOf(path) !== undefined)
      .flatMap(({ file, path }) =>
        importsOf(file)
          .filter((target) => {
            const group = groupOf(target);
            return group !== undefined && group !== groupOf(path) && group !== "shared";
          })
          .map((target) => `src/${path} imports src/${target}`),
      );
    expect(wrong).toEqual([]);
  });

  it("the rule can fail: an upward import is caught", () => {
    expect(placeOf("api/client.ts").level).toBeLessThan(placeOf("commands/tests/list.ts").level);
    expect(placeOf("prompts/pickTest.ts").level).toBeLessThan(placeOf("commands/links/wizard.ts").level);
  });
});
