import type { Command } from "commander";
import { TOPICS } from "./help/topics.js";

/** The command groups in `assess --help`'s order: names and summaries only, so none loads to list them. */
const SUMMARIES = {
  tests: "List tests and read or change their settings",
  invite:
    "Invite candidates to tests, one at a time, in bulk or through a link; chase those who have not finished",
  links: "List, create and change test links (named entry points of a test)",
  reports: "Read candidates' reports: data, PDF, a period's spreadsheet or statistics",
  attempts: "List finished attempts (Completed, Test left, Terminated) of any period, or watch for new ones",
  callbacks: "Resend test-completion notifications, receive them locally, or reconcile the two",
  rules: "Check and try rules on results (attempts watch --rules): advance, shortlist, post, run",
  gdpr: "Mask candidates' personal data (GDPR requests)",
  users: "Create users, move them between business units, activate or deactivate them",
  employees:
    "Employees and their skills: lists, skills profiles, certificates, resumes, reports, learning, skill gaps",
  auth: "Store, check and remove the API key of a profile",
  config: "Read and change profile settings (api-key, base-url, skills-base-url, output, timeout, retries)",
  audit: "Show the audit log of writes from the CLI, the SDK and the MCP server: who, what, when, outcome",
  api: "Send a raw request to the service (for operations known by name only); prints the answer's body",
  sandbox: "Run a local emulator of the whole service (two demo accounts, seeded data) until Ctrl-C",
  openapi: "Print an OpenAPI 3.1 document of both services (for Postman and code generators)",
  mcp: "Serve the operations to AI assistants (Model Context Protocol over stdio or HTTP), read-only unless allowed",
  completion: "Print a shell completion script generated from the command tree",
  help: `Show help for a command, or a topic: ${Object.keys(TOPICS).join(", ")}`,
};

/** The summaries of groups below a group (`assess tests settings`), by their path. */
export const SUBGROUPS: Record<string, string> = {
  "tests settings": "Read or change a test's settings",
  "mcp token": "Make, list and revoke the bearer tokens of `assess mcp --http`",
};

/** The verbs a group's help lists first, in this order, by the group's path; the others follow by name. */
export const ORDER: Record<string, string[]> = {
  users: ["create", "update", "activate", "deactivate"],
  config: ["list", "get", "set", "unset", "path"],
  auth: ["login", "status", "logout"],
  tests: ["list", "get", "settings"],
  employees: [
    "list",
    "upsert",
    "sync",
    "skills",
    "skills-profiles",
    "certificates",
    "add-certificate",
    "status",
    "report",
    "upload-resume",
    "assign-learning",
    "skill-gap",
  ],
  invite: ["send", "bulk", "link", "status", "remind", "cancel", "reattempt"],
  links: ["list", "get", "create", "update", "activate", "deactivate"],
  reports: ["get", "pdf", "export", "stats"],
  attempts: ["list", "watch"],
  callbacks: ["resend", "reconcile", "listen"],
  rules: ["check", "test"],
  "tests settings": ["get", "set", "pull", "apply"],
  "mcp token": ["create", "list", "revoke"],
};

export type GroupName = keyof typeof SUMMARIES;

export const GROUPS = Object.entries(SUMMARIES).map(([name, summary]) => ({
  name: name as GroupName,
  summary,
}));

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
