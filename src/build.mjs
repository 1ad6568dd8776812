#!/usr/bin/env node
/**
 * `npm run build`: bundles into dist/, every file CommonJS and side by side: launch.cjs (bin/assess.js loads
 * it) and program.cjs (--help, --version); cli.cjs and its chunks, split by command group, and check-worker.cjs;
 * commander, zod and undici apart; the chunks and those three loaded through V8's code cache (code-cache.cjs);
 * the SDK's bundles and types.
 */
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";
import { verbsPlugin } from "./commands/verb-files.mjs";
import { answerTypes, writtenTypes } from "./sdk/written-types.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const dist = join(root, "dist");

/** A plugin giving `contents` to the modules matching `filter` that the package `pkg` imports. */
function replaceImports(name, pkg, filter, contents) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter }, (args) =>
        args.importer.includes(join("node_modules", pkg)) ? { path: args.path, namespace: name } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: name }, () => ({ contents }));
    },
  };
}

// undici loads its HTTP/2 client (and node:http2, tls, crypto: ~3 ms) even for HTTP/1.1; assess never uses it.
const withoutHttp2 = replaceImports(
  "undici-without-http2",
  "undici",
  /[\\/]client-h2\.js$/,
  'module.exports = () => { throw new Error("HTTP/2 is not built into assess"); };',
);

// commander loads node:child_process (~1 ms) for executable subcommands, which assess has none of.
const lazyChildProcess = replaceImports(
  "commander-lazy-child-process",
  "commander",
  /^node:child_process$/,
  'let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require("node:child_process"))[key] });',
);

// conf needs ajv, ajv-formats and semver (~380 KB) only for schemas and migrations, which assess never gives.
const confWithoutSchemas = replaceImports(
  "conf-without-schemas",
  "conf",
  /^(ajv|ajv-formats|semver)(\/|$)/,
  "module.exports = {};",
);

/** Each verb's spec by its path's JSON text, read by loading every verb module once, at build time. */
async function verbSpecs() {
  const { outputFiles } = await build({
    ...common,
    stdin: {
      contents: `const { VERBS } = require("assess:verbs");
module.exports = Promise.all(VERBS.map(async (v) => [JSON.stringify(v.path), (await v.load()).default.spec]));`,
      resolveDir: src,
      loader: "js",
    },
    outdir: undefined,
    write: false,
    plugins: [...common.plugins, verbsPlugin(src)],
  });
  return Object.fromEntries(await run(outputFiles[0].text));
}

/** The exports of a CommonJS bundle's `code`, run in this process as if it were in src/. */
async function run(code) {
  const module = { exports: {} };
  new Function("module", "exports", "require", "__filename", "__dirname", code)(
    module,
    module.exports,
    createRequire(join(src, "manifest.cjs")),
    join(src, "manifest.cjs"),
    src,
  );
  return module.exports;
}

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

/** The large libraries, bundled apart to be loaded through V8's code cache instead of compiled on every run. */
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
        contents: `const { join } = require("node:path");
const { loadBundle } = require(join(__dirname, "code-cache.cjs"));
module.exports = loadBundle(join(__dirname, ${JSON.stringify(args.path)}));`,
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

// code-cache.cjs is one module for the launcher (which has it load the CLI's chunks) and the chunks loading
// the bundles above: one list of caches to write, one look-up of the key.
await build({
  ...common,
  entryPoints: {
    launch: join(src, "launch.ts"),
    program: join(src, "program.ts"),
    "code-cache": join(src, "runtime", "code-cache.ts"),
  },
});
writeFileSync(join(dist, "help.txt"), rootHelp());

/** The root's `--help` as piped output shows it (80 columns), for launch.ts to print without commander. */
function rootHelp() {
  const { declareProgram } = createRequire(import.meta.url)(join(dist, "program.cjs"));
  let text = "";
  const io = { stdout: { write: (chunk) => (text += chunk) }, stderr: { write: () => true } };
  try {
    declareProgram(io).parse(["--help"], { from: "user" });
  } catch (error) {
    if (error.exitCode !== 0) throw error;
  }
  return text;
}

// esbuild splits ES modules only, and Node loads CommonJS faster: the chunks are built as ES modules, then
// each is turned into CommonJS.
const cli = await build({
  ...common,
  // check-worker.cjs checks half of a large bulk file in a worker thread (src/bulk/rows/parallel-check.ts).
  entryPoints: [join(src, "cli.ts"), join(src, "bulk", "rows", "check-worker.ts")],
  entryNames: "[name]",
  format: "esm",
  splitting: true,
  chunkNames: "[name]-[hash]",
  plugins: [...common.plugins, cachedBundles(files), verbsPlugin(src, await verbSpecs())],
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

// The SDK: ES module and CommonJS bundles, each whole (zod and undici inside), none of the CLI's chunks;
// conf (profiles) is left out, as the SDK never writes them.
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
 * The SDK's declarations: its entry's and those of the files they import, into `out` (transpileDeclaration:
 * no type checking). A declaration importing a package (zod, undici: a consumer has none) is refused. Each is
 * written twice: `.d.ts` for `import` (the package is an ES module one) and `.d.cts`, importing the other
 * `.d.cts` files, for `require`: a CommonJS consumer's TypeScript (module node16) reads those as CommonJS.
 */
async function sdkTypes(entry, out) {
  const { default: ts } = await import("typescript");
  const { mkdirSync, readFileSync } = await import("node:fs");
  const { relative } = await import("node:path");
  const typesFile = join(src, "sdk", "types.ts");
  /** What types.ts is written out from: the schemas, the operation records, the lists it imports by name. */
  const written = async (source) => {
    const listed = [...source.matchAll(/^import type \{ ([^}]+) \} from "(\.[^"]+)";$/gm)].map(
      ([, names, spec]) => [names.split(", "), resolve(dirname(typesFile), spec.replace(/\.js$/, ".ts"))],
    );
    const { outputFiles } = await build({
      ...common,
      stdin: {
        contents: `module.exports = {
  schemas: require("./api/schemas.ts"),
  operations: require("./api/operations/index.ts"),
  imports: [${listed.map(([, file]) => `require(${JSON.stringify(file)})`).join(", ")}],
};`,
        resolveDir: src,
        loader: "js",
      },
      outdir: undefined,
      write: false,
    });
    const { schemas, operations, imports } = await run(outputFiles[0].text);
    const lists = Object.fromEntries(
      listed.flatMap(([names], i) =>
        names.map((name) => [name, imports[i][name]]).filter(([, value]) => Array.isArray(value)),
      ),
    );
    const answers = answerTypes(readFileSync(join(src, "api", "operations", "index.ts"), "utf8"));
    return writtenTypes(source, schemas, { lists, operations, answers });
  };
  const todo = [entry];
  const seen = new Set();
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const name = relative(src, file);
    const text = readFileSync(file, "utf8");
    const source = file === typesFile ? await written(text) : text;
    const { outputText, diagnostics = [] } = ts.transpileDeclaration(source, {
      fileName: name,
      reportDiagnostics: true,
      // stripInternal: types.ts's `@internal` types are the source's own (how AssessClient is typed from the records).
      compilerOptions: {
        module: ts.ModuleKind.NodeNext,
        target: ts.ScriptTarget.ES2023,
        strict: true,
        stripInternal: true,
      },
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
    const required = outputText.replace(
      /^((?:import|export)\s[^;]*?\bfrom\s+"\.[^"]*)\.js"/gm,
      (_, head) => `${head}.cjs"`,
    );
    writeFileSync(target.replace(/\.d\.ts$/, ".d.cts"), required);
  }
}
