import type { Command } from "commander";
import { CONFIG_KEYS } from "../config/store.js";
import type { Kit } from "./shared/kit.js";

interface Group {
  name: string;
  summary: string;
  load: () => Promise<{ register(group: Command, kit: Kit): void }>;
}

/**
 * Every command group, in the order `assess --help` lists them. Only the group a command line names is
 * loaded and declared in full; the others stay one-line stubs, so start-up does not grow with the tree.
 */
export const GROUPS: Group[] = [
  {
    name: "tests",
    summary: "List tests and read or change their settings",
    load: () => import("./tests/index.js"),
  },
  {
    name: "invite",
    summary: "Invite candidates to tests, one at a time, in bulk or through a link",
    load: () => import("./invite/index.js"),
  },
  {
    name: "links",
    summary: "List, create and change test links (named entry points of a test)",
    load: () => import("./links/index.js"),
  },
  {
    name: "reports",
    summary: "Read candidates' reports, as data, PDF, or a spreadsheet of a period",
    load: () => import("./reports/index.js"),
  },
  {
    name: "attempts",
    summary: "List finished attempts (Completed, Test left, Terminated) of any period",
    load: () => import("./attempts/index.js"),
  },
  {
    name: "callbacks",
    summary: "Resend test-completion notifications, or receive them locally",
    load: () => import("./callbacks/index.js"),
  },
  {
    name: "gdpr",
    summary: "Mask candidates' personal data (GDPR requests)",
    load: () => import("./gdpr/index.js"),
  },
  {
    name: "users",
    summary: "Create users, move them between business units, activate or deactivate them",
    load: () => import("./users/index.js"),
  },
  {
    name: "employees",
    summary:
      "Employees and their skills: lists, skills profiles, certificates, resumes, reports, learning, skill gaps",
    load: () => import("./employees/index.js"),
  },
  {
    name: "auth",
    summary: "Store, check and remove the API key of a profile",
    load: () => import("./auth/index.js"),
  },
  {
    name: "config",
    summary:
      "Read and change profile settings (api-key, base-url, skills-base-url, output, timeout, retries)",
    load: () => import("./config/index.js"),
  },
  {
    name: "api",
    summary:
      "Send a raw request to the service (for operations known by name only); prints the answer's body",
    load: () => import("./api/index.js"),
  },
  {
    name: "sandbox",
    summary: "Run a local emulator of the whole service (two demo accounts, seeded data) until Ctrl-C",
    load: () => import("./sandbox/index.js"),
  },
  {
    name: "completion",
    summary: "Print a shell completion script generated from the command tree",
    load: () => import("./completion/index.js"),
  },
  {
    name: "help",
    summary: "Show help for a command, or a topic: environment, formatting, exit-codes",
    load: () => import("./help/index.js"),
  },
];

/** Groups that work on the whole tree (help of any command, completion scripts) need every group declared. */
const NEEDS_ALL = new Set(["help", "completion"]);

/** Declares the groups; `wanted` (the group a command line names, or "all") is declared in full. */
export async function registerCommands(
  program: Command,
  kit: Kit,
  wanted: string | undefined,
): Promise<void> {
  const all = wanted === "all" || (wanted !== undefined && NEEDS_ALL.has(wanted));
  for (const group of GROUPS) {
    const command = program.command(group.name).description(group.summary);
    if (all || group.name === wanted) (await group.load()).register(command, kit);
  }
}

/** Global options that take a value: their value is not the group's name. */
const VALUED = new Set([
  "--profile",
  "--api-key",
  "--base-url",
  "--skills-base-url",
  "-o",
  "--output",
  "--fields",
  "--timeout",
  "--retries",
]);

/** The first word of a command line that is neither an option nor an option's value. */
export function groupOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") return argv[i + 1];
    if (!word.startsWith("-")) return word;
    if (VALUED.has(word)) i++;
  }
  return undefined;
}
