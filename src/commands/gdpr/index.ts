import type { Command } from "commander";
import { examples, type GroupSetup } from "../shared/verbs.js";

export function register(gdpr: Command, { lazy }: GroupSetup): void {
  examples(
    gdpr
      .command("mask")
      .description("Mask every record of a candidate, or one attempt's record (asks for confirmation)")
      .option("--email <email>", "the candidate's e-mail")
      .option("--invitation <testInvitationId>", "mask only this attempt's record")
      .option("-y, --yes", "do not ask for confirmation (required without prompts)")
      .action(lazy(() => import("./mask.js"))),
    [
      "assess gdpr mask --email ada@example.com",
      "assess gdpr mask --email emeka.andersson@example.org --invitation 100002 --yes",
    ],
  );
}
