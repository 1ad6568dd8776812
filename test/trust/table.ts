/**
 * The trust suite's evidence table: each test records the fault or input it tried, what the CLI did, and how
 * many rows were lost or duplicated (both must be 0); `printTable` writes the rows as Markdown after the file.
 */
export interface TrustRow {
  input: string;
  outcome: string;
  lost: number;
  duplicated: number;
}

const rows: TrustRow[] = [];

export function record(row: TrustRow): void {
  rows.push(row);
}

export function printTable(title: string): void {
  if (rows.length === 0) return;
  const lines = [
    `### ${title}`,
    "| fault or input | what happened | lost | duplicated |",
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.input} | ${r.outcome} | ${r.lost} | ${r.duplicated} |`),
  ];
  console.log(lines.join("\n"));
}

/** Rows never confirmed (lost) and rows sent more than once, from per-e-mail counts of what the service processed. */
export function lostAndDuplicated(
  counts: Map<string, number>,
  emails: string[],
): { lost: number; duplicated: number } {
  let lost = 0;
  let duplicated = 0;
  for (const email of emails) {
    const n = counts.get(email) ?? 0;
    if (n === 0) lost++;
    if (n > 1) duplicated++;
  }
  return { lost, duplicated };
}
