import { search } from "@inquirer/prompts";
import type { Test } from "../api/schemas.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { escapeControls } from "../escape.js";
import type { Client } from "../sdk/client.js";
import { promptIo } from "./io.js";

/** A searchable list of the account's tests, for commands run without `--test`. */
export async function pickTest(ctx: Context, client: Client): Promise<number> {
  const tests: Test[] = [];
  for await (const test of client.tests.iterate()) tests.push(test);
  if (tests.length === 0) throw new UsageError("The account has no tests to choose from");
  return search<number>(
    {
      message: "Which test?",
      source: (term) => {
        const needle = (term ?? "").toLowerCase();
        return tests
          .filter((t) => !needle || `${t.testId} ${t.testName ?? ""}`.toLowerCase().includes(needle))
          .map((t) => ({
            name: escapeControls(`${t.testName ?? "(unnamed)"} (${t.testId})`),
            value: t.testId,
          }));
      },
    },
    promptIo(ctx),
  );
}
