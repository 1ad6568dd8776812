/**
 * The packaged entry: bin/assess.js requires dist/launch.cjs, a CommonJS build of this file. `--help` and
 * `--version` are answered from the root of the tree alone (src/program.ts, dist/program.cjs), any other
 * command line by the full CLI (dist/cli.cjs). All of dist/ is CommonJS (src/build.mjs): Node 20 spends
 * ~5 ms setting up its ES module loader before an ES module runs a line, and loads each one slower.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tuneV8 } from "./runtime/v8-flags.js";

const ROOT_ONLY = new Set(["--help", "-h", "--version", "-v"]);
const argv = process.argv.slice(2);

if (argv.length === 1 && ROOT_ONLY.has(argv[0]!)) {
  // A bundle of its own (with commander): the other command lines would parse it for nothing (~3 ms).
  const { declareProgram }: typeof import("./program.js") = require(join(__dirname, "program.cjs"));
  try {
    declareProgram(process).parse(argv, { from: "user" });
  } catch (error) {
    // With exitOverride, shown help and version end in a CommanderError whose exit code is 0.
    if ((error as { exitCode?: number }).exitCode !== 0) throw error;
  }
} else {
  tuneV8(argv);
  const { run }: typeof import("./cli.js") = require(join(__dirname, "cli.cjs"));
  void run({ checkWorker: pathToFileURL(join(__dirname, "check-worker.cjs")) });
}
