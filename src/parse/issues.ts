/** A ZodError's issues as lines (`path: message`), or undefined for any other error. */
export function zodIssueLines(error: unknown): string[] | undefined {
  if (!(error instanceof Error) || error.name !== "ZodError") return undefined;
  const { issues } = error as Error & { issues: Array<{ path: PropertyKey[]; message: string }> };
  return issues.map((i) => (i.path.length > 0 ? `${i.path.map(String).join(".")}: ${i.message}` : i.message));
}
