import type { Command } from "commander";

/** The command groups in `assess --help`'s order: names and summaries only, so no group loads to list them. */
export const GROUPS = [
  { name: "tests", summary: "List tests and read or change their settings" },
  { name: "invite", summary: "Invite candidates to tests, one at a time, in bulk or through a link" },
  { name: "links", summary: "List, create and change test links (named entry points of a test)" },
  { name: "reports", summary: "Read candidates' reports: data, PDF, a period's spreadsheet or statistics" },
  {
    name: "attempts",
    summary: "List finished attempts (Completed, Test left, Terminated) of any period, or watch for new ones",
  },
  {
    name: "callbacks",
    summary: "Resend test-completion notifications, receive them locally, or reconcile the two",
  },
  { name: "gdpr", summary: "Mask candidates' personal data (GDPR requests)" },
  { name: "users", summary: "Create users, move them between business units, activate or deactivate them" },
  {
    name: "employees",
    summary:
      "Employees and their skills: lists, skills profiles, certificates, resumes, reports, learning, skill gaps",
  },
  { name: "auth", summary: "Store, check and remove the API key of a profile" },
  {
    name: "config",
    summary:
      "Read and change profile settings (api-key, base-url, skills-base-url, output, timeout, retries)",
  },
  {
    name: "api",
    summary:
      "Send a raw request to the service (for operations known by name only); prints the answer's body",
  },
  {
    name: "sandbox",
    summary: "Run a local emulator of the whole service (two demo accounts, seeded data) until Ctrl-C",
  },
  {
    name: "openapi",
    summary: "Print an OpenAPI 3.1 document of both services (for Postman and code generators)",
  },
  {
    name: "mcp",
    summary:
      "Serve the operations to AI assistants (Model Context Protocol over stdio), read-only unless allowed",
  },
  { name: "completion", summary: "Print a shell completion script generated from the command tree" },
  { name: "help", summary: "Show help for a command, or a topic: environment, formatting, exit-codes" },
] as const;

export type GroupName = (typeof GROUPS)[number]["name"];

/** The first word of a command line that is neither a global option nor its value: the group named. */
export function groupOf(argv: string[], program: Command): string | undefined {
  const valued = new Set(
    program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.short, o.long]),
  );
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") return argv[i + 1];
    if (!word.startsWith("-")) return word;
    if (valued.has(word)) i++;
  }
  return undefined;
}
