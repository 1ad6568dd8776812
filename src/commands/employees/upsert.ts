import type { Employee } from "../../bulk/rows/employees.js";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
import { readUpsertAnswer } from "../../sdk/bulk.js";
import { MAX_UPSERT_EMPLOYEES } from "../../spec/limits.js";
import { bulkFileOptions } from "../shared/bulk-options.js";
import { ledgerTarget, runAndReport } from "../shared/bulk-run.js";
import { type EmployeeInput, withEmployees } from "./input.js";

/** --concurrency defaults to 8 (index.ts): requests of 100 employees are small and many, more in flight hide the latency. */
export const options = z.object({ ...bulkFileOptions(MAX_UPSERT_EMPLOYEES) });
export const args = z.tuple([z.string()]);

export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [file]: z.infer<typeof args>,
): Promise<number> {
  return withEmployees(ctx, file, o, (input) => upsert(ctx, o, input));
}

async function upsert(
  ctx: Context,
  o: z.infer<typeof options>,
  { rows, openRejects, inputName, locate, unit, noRows }: EmployeeInput,
): Promise<number> {
  const { chunkSize, concurrency } = o;
  const client = await ctx.client();
  const { baseUrl: skillsBaseUrl, key } = await ledgerTarget(ctx, "skills");
  return runAndReport<Employee>(
    ctx,
    {
      kind: "upsert",
      inputName,
      locate,
      noRowsMessage: noRows,
      ...rows,
      target: () => ({ baseUrl: skillsBaseUrl, key }),
      chunkSize,
      maxChunk: MAX_UPSERT_EMPLOYEES,
      concurrency,
      skipInvalid: o.skipInvalid === true,
      restart: o.restart === true,
      retryUncertain: o.retryUncertain === true,
      rejects: openRejects,
      // Two rows of one employee that differ: which one should the service keep? Neither is sent.
      conflictReason: (line) =>
        `conflicts with ${unit} ${line}: the same e-mail with other values (one row per employee)`,
      // The SDK's upsert takes items; the engine's rows are already checked and serialized, so they go
      // through the same request function (client.api) and the same reading of its answer.
      send: async (_group, rows) => readUpsertAnswer(rows, await client.api.upsertEmployees(rows)),
    },
    { verb: "Upserted", noun: ["employee", "employees"], inputName, locate },
  );
}
