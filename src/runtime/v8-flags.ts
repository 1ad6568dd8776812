/**
 * The V8 flags of the CLI's process, set by the launcher (src/launch.ts) and nowhere else: the SDK and the
 * in-process tests keep Node's defaults. Measurements in bench/README.md.
 *
 * --liftoff-only: undici's llhttp (the only WebAssembly) would be recompiled by TurboFan after the last
 * answer, and Node waits for it (~85 ms per command; a ~35 MB spike in bulk runs). Set as the first
 * connection starts, not at launch: any flag change makes Node's own later modules compile from source
 * (~10 ms). It turns two flags off too; the code cache sets all three back before it writes.
 */
const FIRST_CONNECTION = "--liftoff-only";
const BEFORE_FIRST_CONNECTION = "--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering";

/**
 * Bulk runs: rows live long enough to reach the old generation, which V8 lets grow fourfold between full
 * collections (peak RSS ~150-180 MiB); by half at most it stays ~125-132 MiB at no cost in time. Not for
 * other commands: their start-up took ~9 ms longer with it.
 */
const BULK_RUNS = "--heap-growing-percent=50";

/** The commands that run a bulk job, as group and verb. */
const BULK_COMMANDS = [
  ["invite", "bulk"],
  ["employees", "upsert"],
  ["callbacks", "resend"],
] as const;

/** The flags a command line gets at launch: a bulk command's group and verb words in order, unparsed. */
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
