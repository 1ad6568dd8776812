import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Worker threads start faster than forked processes, and no test needs a process of its own (the built CLI
    // runs in child processes, main(argv) takes its streams, env and signal as arguments).
    pool: "threads",
    // Twice the cores: many files mostly wait (on child processes, on the polls of `attempts watch`, on
    // loopback servers), so two files per core keep both cores busy.
    maxWorkers: 4,
  },
});
