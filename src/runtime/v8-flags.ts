/**
 * The V8 flags of the CLI's process, set by the launcher (src/launch.ts) before the first bundle loads, and
 * nowhere else: the SDK (a library in someone else's process) and the tests that run `main()` in-process keep
 * Node's defaults. Each flag is here with the measurement that justifies it (bench/README.md has the runs).
 *
 * V8 stamps its code caches (src/runtime/code-cache.ts) with a tag that covers its flags: the caches are
 * written under the flags of launch, which are what the next run reads them under (bulk runs, whose flags
 * differ, have caches of their own).
 */
/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 runs it on its baseline tier (Liftoff) at once,
 * then recompiles the hot parser with TurboFan on a background thread. Node does not exit before that job is
 * done: ~85 ms after the last answer of every short command, more than bare Node's whole start-up; and in bulk
 * runs it is a one-off ~35 MB spike of resident memory. Answers here are small, so the baseline tier is fast
 * enough. Only WebAssembly is affected (llhttp is the only module).
 *
 * It is set as the first connection starts (undici compiles llhttp once connected), not at launch: any flag
 * changes V8's hash of its flags, and Node's own modules loaded after that are compiled from source instead of
 * from the code cache built into Node (`tests list` took ~10 ms longer with it set at launch). Setting it also
 * turns two flags off; the code cache (code-cache.ts) sets all three back before it writes its caches.
 */
const FIRST_CONNECTION = "--liftoff-only";
const BEFORE_FIRST_CONNECTION = "--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering";

/**
 * A bulk run keeps ~11 MB live, but a million rows pass through it: each row's strings and objects live while
 * its chunk is out, long enough for some to reach the old generation. V8 lets that grow to about four times
 * what the last full collection kept before collecting again, which took peak RSS to ~150 MiB (upserts) and
 * ~180 MiB (invites) at --concurrency 8. Growing it by half at most keeps them at ~125 and ~132 MiB, at no
 * measurable cost in time. Set at launch for bulk commands only (before their check pass, which reads the
 * whole input): other commands' start-up took ~9 ms longer with it (`tests list`, 40 alternating runs).
 */
const BULK_RUNS = "--heap-growing-percent=50";

/** The commands that run a bulk job, as group and verb. */
const BULK_COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["invite", "bulk"],
  ["employees", "upsert"],
  ["callbacks", "resend"],
];

/**
 * The flags a command line (`argv`, without node and the script) gets at launch. A bulk command is recognised
 * by its group and verb words in that order, before the command line is parsed: a stray match only tunes the
 * collector of a short command.
 */
export function launchFlagsFor(argv: readonly string[]): string | undefined {
  const bulk = BULK_COMMANDS.some(([group, verb]) => {
    const at = argv.indexOf(group);
    return at >= 0 && argv.indexOf(verb, at + 1) > at;
  });
  return bulk ? BULK_RUNS : undefined;
}

/** Sets the CLI's flags: those of launch now, --liftoff-only as undici starts its first connection. */
export function tuneV8(argv: readonly string[]): void {
  const launch = launchFlagsFor(argv);
  if (launch) process.getBuiltinModule("node:v8").setFlagsFromString(launch);
  const channels = process.getBuiltinModule("node:diagnostics_channel");
  const beforeConnect = (): void => {
    channels.unsubscribe("undici:client:beforeConnect", beforeConnect);
    process.getBuiltinModule("node:v8").setFlagsFromString(FIRST_CONNECTION);
  };
  channels.subscribe("undici:client:beforeConnect", beforeConnect);
}

/** Sets back what was set after launch, so that V8 stamps caches with the tag the next run reads them under. */
export function restoreLaunchFlags(): void {
  process.getBuiltinModule("node:v8").setFlagsFromString(BEFORE_FIRST_CONNECTION);
}
