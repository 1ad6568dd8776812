/**
 * The V8 flags of the CLI's process, set by the launcher (src/launch.ts) before the first bundle loads, and
 * nowhere else: the SDK (a library in someone else's process) and the tests that run `main()` in-process keep
 * Node's defaults. Each flag is here with the measurement that justifies it (bench/README.md has the runs).
 *
 * Set before anything is compiled, they are also the flags V8 stamps into the code caches
 * (src/runtime/code-cache.ts) and finds again when it reads them: every run of the CLI has the same.
 */
const FLAGS = [
  /*
   * undici parses HTTP with llhttp compiled to WebAssembly. V8 runs it on its baseline tier (Liftoff) at once,
   * then recompiles the hot parser with TurboFan on a background thread. Node does not exit before that job
   * is done: ~85 ms after the last answer of every short command, more than bare Node's whole start-up; and in
   * bulk runs it is a one-off ~35 MB spike of resident memory. Answers here are small, so the baseline tier is
   * fast enough. Only WebAssembly is affected (llhttp is the only module).
   */
  "--liftoff-only",
  /*
   * A bulk run keeps ~11 MB live, but a million rows pass through it: each row's strings and objects live
   * while its chunk is out, long enough for some to reach the old generation. V8 lets that grow to about four
   * times what the last full collection kept before collecting again, which took peak RSS to ~150 MiB
   * (upserts) and ~180 MiB (invites) at --concurrency 8. Growing it by half at most keeps them at ~125 and
   * ~132 MiB, at no measurable cost in time; a short command never collects its old generation at all, so it
   * is unchanged (bench:startup, alternating builds).
   */
  "--heap-growing-percent=50",
];

/** Sets the CLI's V8 flags; once per process, before any bundle is loaded. */
export function tuneV8(): void {
  process.getBuiltinModule("node:v8").setFlagsFromString(FLAGS.join(" "));
}
