import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
// @ts-expect-error: a plain ES module of the build's, without declarations
import { verbsModule } from "./src/commands/verb-files.mjs";

/** `assess:verbs`, the verbs found where their files sit, as src/build.mjs makes it for the bundle. */
const verbs: Plugin = {
  name: "assess-verbs",
  resolveId: (id) => (id === "assess:verbs" ? "\0assess:verbs" : undefined),
  load: (id) =>
    id === "\0assess:verbs" ? verbsModule(fileURLToPath(new URL("./src", import.meta.url))) : undefined,
};

const testFiles = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => join("test", file));
const uses = (pattern: RegExp) => testFiles.filter((file) => pattern.test(readFileSync(file, "utf8")));

/**
 * The test files that replace a module (vi.mock of node:fs): they need the modules evaluated afresh for them, so
 * each runs isolated, in a process of its own. Every other file shares its worker's modules with the files
 * before it (isolate: false): evaluating src/ and its dependencies once per worker instead of once per file
 * takes a third off the CPU time of in-process files.
 */
const mocking = uses(/\bvi\.mock\(/);

/**
 * The test files that need a process, not a worker thread, though not one of their own: those that drive a
 * pseudo-terminal (test/helpers/terminal.ts) and those that change folder (process.chdir, which a worker thread
 * may not do; test/helpers/shell.ts does). node-pty is not thread-safe and reports a child's exit from a thread of its own: in a worker
 * thread being torn down, that report aborts the whole run (`Napi::Error`, exit 134). These files run in
 * forked processes that each serve several files; the helper closes every terminal before its file ends.
 */
const inForks = uses(/\/helpers\/(terminal|shell)\.js|\bprocess\.chdir\(/).filter(
  (file) => !mocking.includes(file),
);

/**
 * Timeouts are a guard against a hang, not a measure: the slowest test takes ~10 s on a quiet 2-core machine
 * (benchmark sizes live in bench/), several times that beside another suite, so 5 minutes is never reached by a
 * test that works. A test that does time out has its child processes and in-process runs stopped as it ends
 * (test/helpers/cli.ts), so they cannot disturb the next test.
 */
const common = { testTimeout: 300_000, hookTimeout: 300_000, setupFiles: ["test/setup.ts"] };

export default defineConfig({
  test: {
    // Once for every project (a project's own globalSetup would build dist/ again, in parallel).
    globalSetup: ["test/global-setup.ts"],
    // Two files per core: with most runs in-process, a file spends much of its time waiting (a watch's interval,
    // a Retry-After, a held request, a terminal), not computing. test/attempts and test/trust on 2 cores at load
    // 4-5: 76 s with 2 workers, 65 s with 3, 47 s with 4, the same CPU time. Timeouts are guards, not measures
    // (below), so a loaded machine makes runs slower, not red.
    maxWorkers: 2 * availableParallelism(),
    projects: [
      {
        // Worker threads start faster than forked processes, and no other test needs a process of its own (the
        // built CLI runs in child processes, main(argv) takes its streams, env and signal as arguments).
        plugins: [verbs],
        test: {
          ...common,
          name: "threads",
          include: ["test/**/*.test.ts"],
          exclude: [...inForks, ...mocking],
          pool: "threads",
          isolate: false,
        },
      },
      {
        plugins: [verbs],
        test: { ...common, name: "forks", include: inForks, pool: "forks", isolate: false },
      },
      {
        plugins: [verbs],
        test: { ...common, name: "isolated", include: mocking, pool: "forks" },
      },
    ],
  },
});
