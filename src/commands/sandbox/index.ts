import { type Command, Option } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(group: Command, { lazy }: GroupSetup): void {
  const sandbox = examples(
    group
      .option("--port <n>", "port to listen on (0 = any free port)", "4010")
      .option("--host <host>", "address to bind", "127.0.0.1")
      .option("--state <file.json>", "keep the sandbox's data in this file across restarts")
      .option("--prefix <path>", "serve the assessment API under this path prefix (e.g. /api)", "")
      .option("--skills-prefix <path>", "serve the employee-skills API under this path prefix", "/skills")
      .option("--latency <ms>", "add this much latency to every answer", "0")
      .action(lazy(() => import("./serve.js"))),
    [
      "assess sandbox",
      "assess sandbox --port 0 --state sandbox.json",
      "ASSESS_BASE_URL=http://127.0.0.1:4010 ASSESS_SKILLS_BASE_URL=http://127.0.0.1:4010/skills assess tests list",
    ],
  );
  examples(
    sandbox
      .command("complete")
      .description(
        "Make a candidate finish an attempt in a running sandbox; its callback URL gets both notifications",
      )
      .argument("<testInvitationId>", "the invitation to complete")
      .addOption(
        new Option("--status <status>", "how the attempt ends")
          .choices(["Complete", "TestLeft", "Terminated"])
          .default("Complete"),
      )
      .option(
        "--url <url>",
        "the running sandbox (default: --base-url / ASSESS_BASE_URL; with --sandbox, the embedded one)",
      )
      .action(lazy(() => import("./complete.js"))),
    [
      "assess sandbox complete 100304",
      "assess sandbox complete 100306 --status TestLeft --url http://127.0.0.1:4010",
      "assess --sandbox sandbox complete 100311   # an attempt of the embedded sandbox (`assess --sandbox ...`)",
    ],
  );
}
