import { readFileSync, writeFileSync } from "node:fs";
import type { RecordedRequest, Sandbox } from "../../src/sandbox/index.js";

export { ROOT } from "../helpers/cli.js";
export { confirmChunk, flagsOf, hashesOf } from "./ledger-records.js";

/** `n` candidates starting at `from`: `email,name` rows with the header. */
export function candidatesCsv(n: number, from = 0, header = "email,name"): string {
  const lines = [header];
  for (let i = from; i < from + n; i++) lines.push(`cand${i}@example.com,Candidate ${i}`);
  return `${lines.join("\n")}\n`;
}

export function writeCandidates(path: string, n: number, from = 0): void {
  writeFileSync(path, candidatesCsv(n, from));
}

export function isBulkInvite(r: RecordedRequest): boolean {
  return r.method === "POST" && /^\/v3\/tests\/\d+\/invite\/bulk$/.test(r.path);
}

export function isUpsert(r: RecordedRequest): boolean {
  return r.method === "POST" && r.path === "/employees/upsert";
}

export function bulkRequests(sb: Sandbox, from = 0): RecordedRequest[] {
  return sb.requests.slice(from).filter(isBulkInvite);
}

/** How many times each e-mail appears in the processed bulk-invite requests (the ones the sandbox answered 200 or lost after processing). */
export function invitedCounts(sb: Sandbox, from = 0): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of bulkRequests(sb, from)) {
    if (r.status !== 200) continue;
    const body = r.body as { candidates: Array<{ email: string }> };
    for (const c of body.candidates)
      counts.set(c.email.toLowerCase(), (counts.get(c.email.toLowerCase()) ?? 0) + 1);
  }
  return counts;
}

export function expectEachOnce(counts: Map<string, number>, n: number, from = 0): string[] {
  const problems: string[] = [];
  for (let i = from; i < from + n; i++) {
    const c = counts.get(`cand${i}@example.com`) ?? 0;
    if (c !== 1) problems.push(`cand${i}@example.com invited ${c} times`);
  }
  if (counts.size !== n) problems.push(`${counts.size} distinct e-mails invited, expected ${n}`);
  return problems.slice(0, 10);
}

export function readCsvLines(path: string): string[] {
  return readFileSync(path, "utf8").split(/\r?\n/).filter(Boolean);
}
