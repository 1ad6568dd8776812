import type { Command } from "commander";
import type { GroupName } from "./groups.js";
import type { GroupSetup } from "./shared/verbs.js";

type GroupModule = { register(group: Command, setup: GroupSetup): void };

/** Each group's module, loaded only when a command line names the group. */
const MODULES: Partial<Record<GroupName, () => Promise<GroupModule>>> = {
  reports: () => import("./reports/index.js"),
  attempts: () => import("./attempts/index.js"),
  callbacks: () => import("./callbacks/index.js"),
};

/** Declares in full the group `wanted` names ("all": every group) into its stub (src/program.ts). */
export async function registerCommands(
  program: Command,
  setup: GroupSetup,
  wanted: string | undefined,
): Promise<void> {
  // help and completion work on the whole tree: they need every group declared.
  const all = wanted === "all" || wanted === "help" || wanted === "completion";
  for (const group of program.commands) {
    const load = MODULES[group.name() as GroupName];
    if (load && (all || group.name() === wanted)) (await load()).register(group, setup);
  }
}
