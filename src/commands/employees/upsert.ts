import { bulkExitCode } from "../../bulk/engine/summary.js";
import type { Employee } from "../../bulk/rows/employees.js";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
import { runReported } from "../shared/bulk-run.js";
import { fileOptions, upsertJob, upsertWording, withEmployees } from "./input.js";

export const options = fileOptions;
export const args = z.tuple([z.string()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [file]: z.infer<typeof args>) {
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
