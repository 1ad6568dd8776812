/** An upsert of employees (`employees upsert`, `sync`): chunks of checked rows; refusals named by e-mail. */
import { OPERATIONS } from "../../api/operations/index.js";
import { emailKey } from "../../identity.js";
import type { ChunkAnswer } from "../engine/types.js";
import { checkEmployee, type Employee } from "../rows/employees.js";
import { type Job, ledgerTarget, type Service } from "./index.js";

export function upsertJob(service: Service): Job<unknown, Employee> {
  const target = ledgerTarget(service, "skills");
  return {
    kind: "upsert",
    maxChunk: OPERATIONS.upsertEmployees.limits.items,
    target: () => target,
    prepare: checkEmployee,
    send: async (_group, rows) => readUpsertAnswer(rows, await service.api.upsertEmployees(rows)),
  };
}

/**
 * An upsert's answer names the employees it refused by e-mail; each maps back to the row that sent it (`rows`:
 * the chunk's, in order), the e-mails compared as src/identity.ts keys them. The index of e-mails is made only
 * for an answer that names some (most name none).
 */
function readUpsertAnswer(
  rows: readonly { label: string }[],
  answer: { failed?: Array<{ email?: string | null; errors?: string | string[] | null }> | null },
): ChunkAnswer {
  if (!answer.failed?.length) return { failed: [], unmatched: [] };
  const index = new Map(rows.map((row, i) => [emailKey(row.label) ?? row.label, i]));
  const failed: NonNullable<ChunkAnswer["failed"]> = [];
  const unmatched: string[] = [];
  for (const entry of answer.failed) {
    const error =
      (Array.isArray(entry.errors) ? entry.errors.join("; ") : entry.errors) || "refused by the service";
    const key = emailKey(entry.email);
    const i = key === undefined ? undefined : index.get(key);
    if (i === undefined) unmatched.push(`${entry.email ?? "(no e-mail)"}: ${error}`);
    else failed.push({ index: i, error });
  }
  return { failed, unmatched };
}
