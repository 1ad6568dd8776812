#!/usr/bin/env node
/**
 * `npm run build`: bundles the CLI into dist/, every file CommonJS and side by side (no subfolders):
 *
 * - launch.cjs, the entry bin/assess.js loads (src/launch.ts), and program.cjs, the root of the command tree
 *   with which it answers --help and --version;
 * - cli.cjs and its chunks: the full CLI, split so that a command line loads only the group it names, and
 *   check-worker.cjs, which shares its chunks;
 * - commander, zod and undici, bundled apart and loaded through V8's code cache (src/runtime/code-cache.ts).
 *
 * Timings are from bench/startup.mjs; bench/README.md has the figures.
 */
import { rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const dist = join(root, "dist");

/**
 * undici's HTTP client loads its HTTP/2 half (and with it `node:http2`, which loads `node:tls` and
 * `node:crypto`: ~3 ms) even for HTTP/1.1. It is used only with `allowH2` or `useH2c`, which this CLI never
 * sets.
 */
const withoutHttp2 = {
  name: "undici-without-http2",
  setup(b) {
    b.onResolve({ filter: /[\\/]client-h2\.js$/ }, (args) =>
      args.resolveDir.includes(join("node_modules", "undici"))
        ? { path: "client-h2", namespace: "undici-without-http2" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "undici-without-http2" }, () => ({
      contents: 'module.exports = () => { throw new Error("HTTP/2 is not built into assess"); };',
    }));
  },
};

/**
 * commander loads `node:child_process` (and with it `net`, `dgram` and more: ~1 ms) to run executable
 * subcommands, which assess has none of; it is loaded on first use instead.
 */
const lazyChildProcess = {
  name: "commander-lazy-child-process",
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes(join("node_modules", "commander"))
        ? { path: "child_process", namespace: "commander-lazy-child-process" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "commander-lazy-child-process" }, () => ({
      contents:
        'let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require("node:child_process"))[key] });',
    }));
  },
};

/**
 * conf validates its file against a JSON schema with ajv only when given one, and migrates it with semver only
 * when given migrations; assess gives neither. ajv, ajv-formats and semver (~380 KB of the ~440 KB conf bundles
 * to, which `auth login` and `config set` load) are left out: either option would fail (a TypeError).
 */
const confWithoutSchemas = {
  name: "conf-without-schemas",
  setup(b) {
    b.onResolve({ filter: /^(ajv|ajv-formats|semver)(\/|$)/ }, (args) =>
      args.importer.includes(join("node_modules", "conf"))
        ? { path: args.path, namespace: "conf-without-schemas" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "conf-without-schemas" }, () => ({
      contents: "module.exports = {};",
    }));
  },
};

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outdir: dist,
  outExtension: { ".js": ".cjs" },
  legalComments: "none",
  logLevel: "warning",
  plugins: [withoutHttp2, lazyChildProcess, confWithoutSchemas],
};

/**
 * The large libraries, bundled apart (by package name, or by the file of src/ that imports what the CLI uses
 * of them) to be loaded through V8's code cache: ~0.8 MB that Node would otherwise compile on every run, and
 * most of their functions again when they first run.
 */
const CACHED = {
  commander: "commander",
  zod: join(src, "parse", "zod.ts"),
  undici: join(src, "api", "undici.ts"),
};

/** In the CLI's build, an import of a CACHED module becomes a module that loads its bundle (`files[name]`). */
function cachedBundles(files) {
  const byEntry = new Map(Object.entries(CACHED).map(([name, entry]) => [entry, files[name]]));
  return {
    name: "cached-bundles",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const entry = args.path.startsWith(".")
          ? resolve(args.resolveDir, args.path).replace(/\.js$/, ".ts")
          : args.path;
        const file = byEntry.get(entry);
        return file ? { path: file, namespace: "cached-bundle" } : undefined;
      });
      // The bundle is next to the chunk that loads it: dist/ has no subfolders.
      b.onLoad({ filter: /.*/, namespace: "cached-bundle" }, (args) => ({
        contents: `const { loadBundle } = require(${JSON.stringify(join(src, "runtime", "code-cache.ts"))});
module.exports = loadBundle(require("node:path").join(__dirname, ${JSON.stringify(args.path)}));`,
        resolveDir: root,
      }));
    },
  };
}

rmSync(dist, { recursive: true, force: true });

// The hash of each bundle's content is in its name: src/runtime/code-cache.ts keys the caches with it.
const bundles = await build({ ...common, entryPoints: CACHED, entryNames: "[name]-[hash]", metafile: true });
const files = Object.fromEntries(
  Object.keys(bundles.metafile.outputs).map((file) => [
    basename(file).replace(/-\w+\.cjs$/, ""),
    basename(file),
  ]),
);

await build({ ...common, entryPoints: [join(src, "launch.ts"), join(src, "program.ts")] });

/*
 * esbuild splits ES modules only, and Node 20 takes ~5 ms to set up its ES module loader, then ~0.4 ms to load
 * each ES module against ~0.2 ms for a CommonJS one (tests list loads ~20 chunks). So the chunks are built as
 * ES modules, then each is turned into CommonJS: imports into require(), import() into a promise of require().
 */
const cli = await build({
  ...common,
  // check-worker.cjs checks half of a large bulk file in a worker thread (src/bulk/speedups/split-check.ts).
  entryPoints: [join(src, "cli.ts"), join(src, "bulk", "speedups", "check-worker.ts")],
  entryNames: "[name]",
  format: "esm",
  splitting: true,
  chunkNames: "[name]-[hash]",
  plugins: [...common.plugins, cachedBundles(files)],
  write: false,
});
for (const { path, text } of cli.outputFiles) {
  const { code } = await transform(text, {
    format: "cjs",
    target: "node20",
    supported: { "dynamic-import": false },
    logLevel: "warning",
  });
  writeFileSync(path, code);
}

/*
 * The SDK (`import { createClient } from "assess-cli"`, src/sdk/index.ts): bundles of its own, ES module and
 * CommonJS, each whole (zod and undici inside: the package has no runtime dependencies), none of the CLI's
 * chunks or code cache, and nothing of commander, the prompts or chalk (test/sdk/bundle.test.ts). conf writes
 * profiles (config/store.ts, loaded on first use), which the SDK never does: it is left out. Its types: the
 * declarations of the files its public types come from, in dist/types/ (sdkTypes below).
 */
const sdkEntry = { sdk: join(src, "sdk", "index.ts") };
const sdkCommon = {
  ...common,
  entryPoints: sdkEntry,
  plugins: [withoutHttp2],
  external: ["conf"],
  metafile: true,
};
const sdkBuilds = await Promise.all([
  build({
    ...sdkCommon,
    format: "esm",
    outExtension: { ".js": ".mjs" },
    // undici is CommonJS: its require() of node's modules needs a require in an ES module.
    banner: {
      js: 'import { createRequire as __assessRequire } from "node:module"; const require = __assessRequire(import.meta.url);',
    },
  }),
  build({ ...sdkCommon, format: "cjs", outExtension: { ".js": ".cjs" } }),
]);
writeFileSync(
  join(dist, "sdk-meta.json"),
  JSON.stringify({ inputs: sdkBuilds.flatMap((b) => Object.keys(b.metafile.inputs)) }),
);
await sdkTypes(join(src, "sdk", "index.ts"), join(dist, "types"));

/**
 * Declarations of the SDK's public surface: from its entry, each file's declarations (TypeScript's
 * transpileDeclaration: no type checking, ~0.2 s; `npm run typecheck` checks them), and the files they import,
 * into `out` with src/'s layout. The surface is written in plain types (src/sdk/types.ts) so that none of these
 * imports zod or undici, which a consumer does not have; a declaration that would is refused here.
 */
async function sdkTypes(entry, out) {
  const { default: ts } = await import("typescript");
  const { mkdirSync, readFileSync } = await import("node:fs");
  const { relative } = await import("node:path");
  const todo = [entry];
  const seen = new Set();
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const name = relative(src, file);
    const { outputText, diagnostics = [] } = ts.transpileDeclaration(readFileSync(file, "utf8"), {
      fileName: name,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2023, strict: true },
    });
    if (diagnostics.length > 0) {
      const text = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("; ");
      throw new Error(`src/${name}: its declarations cannot be written on their own: ${text}`);
    }
    for (const [, spec] of outputText.matchAll(/^(?:import|export)\s[^;]*?\bfrom\s+"([^"]+)"/gm)) {
      if (!spec.startsWith(".")) throw new Error(`src/${name}: the SDK's types must not import "${spec}"`);
      todo.push(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
    }
    const target = join(out, name.replace(/\.ts$/, ".d.ts"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
}
