/**
 * The verb files, found where they sit (src/commands/<group>/<verb>.ts, src/mcp/mcp.ts): a file whose default
 * export is `verb(...)`. The build (src/build.mjs), the benchmarks (bench/common.mjs) and the tests
 * (vitest.config.ts) make the module `assess:verbs` from this list, so adding a verb is adding its file.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";

const VERB = /^export default verb\(/m;

/** Files under `dir`, depth first, in name order. */
function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : name.endsWith(".ts") ? [path] : [];
    });
}

/**
 * Every verb of the tree: its command path (`["tests", "settings", "get"]`; `["api"]` for a group's own
 * action, the file named as its folder) and its file.
 */
export function verbFiles(src) {
  const roots = [join(src, "commands"), join(src, "mcp")];
  return roots.flatMap((root) =>
    files(root)
      .filter((file) => VERB.test(readFileSync(file, "utf8")))
      .map((file) => {
        const parts = relative(root, file).replace(/\.ts$/, "").split(sep);
        // src/mcp/mcp.ts is the group `mcp`; src/commands/api/api.ts the group `api`'s own action.
        const path = root.endsWith(`${sep}mcp`) ? [basename(root), ...parts] : parts;
        if (path.length === 2 && path[0] === path[1]) path.pop();
        return { path, file };
      }),
  );
}

/** The source of `assess:verbs`: each verb's path and a loader of its module. */
export function verbsModule(src) {
  const entries = verbFiles(src).map(
    ({ path, file }) => `  { path: ${JSON.stringify(path)}, load: () => import(${JSON.stringify(file)}) },`,
  );
  return `export const VERBS = [\n${entries.join("\n")}\n];\n`;
}

/**
 * esbuild's plugin for `assess:verbs` (src/tree.ts reads it): each verb's loader; with `specs` (each verb's spec
 * by its path's JSON text), each spec written in too, a manifest: commander's tree and help then load no verb
 * module.
 */
export function verbsPlugin(src, specs) {
  return {
    name: "assess-verbs",
    setup(b) {
      b.onResolve({ filter: /^assess:verbs$/ }, () => ({ path: "assess:verbs", namespace: "assess-verbs" }));
      b.onLoad({ filter: /.*/, namespace: "assess-verbs" }, () => ({
        contents: specs
          ? verbsModule(src).replace(
              /path: (\[[^\]]*\]),/g,
              // As JSON text: a string is scanned fast, and only the specs of the group run are parsed.
              (all, path) => `${all} specText: ${JSON.stringify(JSON.stringify(specs[path]))},`,
            )
          : verbsModule(src),
        resolveDir: src,
      }));
    },
  };
}
