/**
 * The packaged entry: bin/assess.js requires dist/launch.cjs, a CommonJS build of this file. Node 20 spends
 * ~4 ms setting up its ES module loader before an ESM entry runs its first line, a quarter of what
 * `assess --help` may take (bench/README.md). So `--help` and `--version` are answered here, from the root of
 * the tree alone (src/program.ts); any other command line runs the full CLI, the ESM build in dist/cli.js.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT_ONLY = new Set(["--help", "-h", "--version", "-v"]);
const argv = process.argv.slice(2);

if (argv.length === 1 && ROOT_ONLY.has(argv[0]!)) {
  // Bundled into this file, and evaluated only on this path: handing over to cli.js needs no commander.
  void import("./program.js").then(({ declareProgram }) => {
    try {
      declareProgram(process).parse(argv, { from: "user" });
    } catch (error) {
      // With exitOverride, shown help and version end in a CommanderError whose exit code is 0.
      if ((error as { exitCode?: number }).exitCode !== 0) throw error;
    }
  });
} else {
  // A computed path, so the bundler leaves the ESM build to Node rather than copying it into this file.
  const cli = pathToFileURL(join(__dirname, "cli.js")).href;
  void import(cli).then((module: typeof import("./cli.js")) => module.run());
}
