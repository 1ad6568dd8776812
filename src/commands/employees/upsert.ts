import { bulkExitCode } from "../../bulk/engine/summary.js";
import type { Employee } from "../../bulk/rows/employees.js";
import type { Context } from "../../context.js";
import { runReported } from "../shared/bulk-run.js";
import { arg } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { fileFlags, upsertJob, upsertWording, withEmployees } from "./input.js";

const flags = fileFlags();

export default verb({
  summary:
    "Create or update employees from a CSV file, an .xlsx sheet or a JSON array (validated, resumable)",
  args: [
    arg.text(
      "<file>",
      "a CSV file or .xlsx workbook (header row: email, firstName, lastName, jobCode, externalEmployeeId, department…; other columns become custom fields) or a JSON array of employees; - reads either from standard input",
    ),
  ],
  flags,
  examples: [
    "assess employees upsert employees.csv",
    "assess employees upsert employees.csv --skip-invalid --rejects rejects.csv",
    "assess employees upsert people.json --json",
    "assess employees upsert staff.xlsx --sheet 'Current staff'",
    "hr-export --json | assess employees upsert -",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [file]: [string]) {
  return withEmployees(ctx, file, o, async (input) => {
    const result = await runReported<Employee>(
      ctx,
      {
        ...(await upsertJob(ctx, o, input, "upsert")),
        ...input.rows,
        // Two rows of one employee that differ: which one should the service keep? Neither is sent.
        conflictReason: (line) =>
          `conflicts with ${input.unit} ${line}: the same e-mail with other values (one row per employee)`,
      },
      upsertWording(input),
    );
    return bulkExitCode(result);
  });
}
