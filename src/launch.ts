/**
 * The packaged entry (dist/launch.cjs): `--version` is answered here; `--help` piped, with the text the build
 * wrote (dist/help.txt: the root's help at the width piped help has); on a terminal `--help` by the root of the
 * tree alone (dist/program.cjs); any other command line by the full CLI (dist/cli.cjs), its chunks loaded through
 * the code cache (dist/code-cache.cjs).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tuneV8 } from "./runtime/v8-flags.js";
import { VERSION } from "./version.js";

const ROOT_ONLY = new Set(["--help", "-h", "--version", "-v"]);
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`${VERSION}\n`);
} else if (argv.length === 1 && ROOT_ONLY.has(argv[0]!) && process.stdout.isTTY !== true) {
  process.stdout.write(readFileSync(join(__dirname, "help.txt")));
} else if (argv.length === 1 && ROOT_ONLY.has(argv[0]!)) {
  const { declareProgram }: typeof import("./program.js") = require(join(__dirname, "program.cjs"));
  try {
    declareProgram(process).parse(argv, { from: "user" });
  } catch (error) {
    // With exitOverride, shown help and version end in a CommanderError whose exit code is 0.
    if ((error as { exitCode?: number }).exitCode !== 0) throw error;
  }
} else {
  tuneV8(argv);
  const { cacheChunks }: typeof import("./runtime/code-cache.js") = require(
    join(__dirname, "code-cache.cjs"),
  );
  cacheChunks(__dirname);
  const { run }: typeof import("./cli.js") = require(join(__dirname, "cli.cjs"));
  void run({ checkWorker: pathToFileURL(join(__dirname, "check-worker.cjs")) });
}
