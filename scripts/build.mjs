#!/usr/bin/env node
/**
 * `npm run build`: bundles the CLI into dist/:
 *
 * - launch.cjs, the entry bin/assess.js loads (src/launch.ts), which answers --help and --version itself;
 * - cli.js and its chunks: the full CLI, ES modules split so that a command line loads only the group it names.
 *
 * Timings are from bench/startup.mjs; bench/README.md has the figures.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  plugins: [withoutHttp2, lazyChildProcess],
};

rmSync(dist, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [join(src, "launch.ts")],
  format: "cjs",
  outfile: join(dist, "launch.cjs"),
});
await build({
  ...common,
  entryPoints: [join(src, "cli.ts")],
  format: "esm",
  splitting: true,
  outdir: dist,
  chunkNames: "chunks/[name]-[hash]",
  // Bundled CommonJS packages call require(); ES modules have none of their own.
  banner: {
    js: "import{createRequire as __assessRequire}from'node:module';const require=__assessRequire(import.meta.url);",
  },
});
