import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The test files that drive a pseudo-terminal (test/helpers/terminal.ts). node-pty is not thread-safe and
 * reports a child's exit from a thread of its own: in a worker thread being torn down, that report aborts the
 * whole run (`Napi::Error`, exit 134). These files run in forked processes; the helper also closes every
 * terminal before its file ends.
 */
const inTerminal = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => join("test", file))
  .filter((file) => readFileSync(file, "utf8").includes("/helpers/terminal.js"));

const common = { testTimeout: 60_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    // Once for both projects (a project's own globalSetup would build dist/ again, in parallel).
    globalSetup: ["test/global-setup.ts"],
    // Twice the cores: many files mostly wait (on child processes, on the polls of `attempts watch`, on
    // loopback servers), so two files per core keep both cores busy.
    maxWorkers: 4,
    projects: [
      {
        // Worker threads start faster than forked processes, and no other test needs a process of its own (the
        // built CLI runs in child processes, main(argv) takes its streams, env and signal as arguments).
        test: {
          ...common,
          name: "threads",
          include: ["test/**/*.test.ts"],
          exclude: inTerminal,
          pool: "threads",
        },
      },
      { test: { ...common, name: "terminal", include: inTerminal, pool: "forks" } },
    ],
  },
});
