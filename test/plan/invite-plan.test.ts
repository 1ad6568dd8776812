/**
 * The bulk-invite plan as a function (src/bulk/plan/invites.ts), its batches given as a plain array; and the
 * SDK's candidates, checked and keyed by the rule of a file's rows (src/bulk/rows/invites.ts).
 */
import { describe, expect, it } from "vitest";
import { type BulkEntry, DONE, UNCERTAIN } from "../../src/bulk/engine/types.js";
import { prepareCandidate } from "../../src/bulk/jobs/invite.js";
import { planInvites } from "../../src/bulk/plan/invites.js";
import { candidateProblems, candidateRow } from "../../src/bulk/rows/invites.js";
import { type FinishedIndex, finishedKey } from "../../src/core/finished.js";

const row = (line: number, email: string): BulkEntry<unknown> => ({
  row: { line, group: "1001", ...candidateRow(email, "Ann Lee") },
});

describe("planInvites", () => {
  it("reads a plain array of batches as it reads an async source, in file order", async () => {
    const finished: FinishedIndex = new Map([
      [
        finishedKey(1001, "done@plan.example"),
        {
          testInvitationId: 7,
          testId: 1001,
          email: "done@plan.example",
          finishedBetween: { from: "2026-11-01T00:00:00Z", to: "2026-11-02T00:00:00Z" },
        },
      ],
    ]);
    const flags: Record<string, number> = { "sent@plan.example": DONE, "lost@plan.example": UNCERTAIN };
    const planned = await planInvites(
      [
        [row(2, "new@plan.example"), row(3, "SENT@plan.example")],
        [
          { invalid: { line: 4, label: "bad", error: 'email: "bad" is not a valid e-mail address' } },
          row(5, "New@Plan.example"),
          row(6, "lost@plan.example"),
          row(7, "done@plan.example"),
        ],
      ],
      { finished, invited: async () => (key) => flags[key] ?? 0, reattempted: async () => () => 0 },
    );
    expect(planned.map((planRow) => [planRow.line, planRow.class, planRow.reason])).toEqual([
      [2, "new", undefined],
      [3, "ledger", undefined],
      [4, "invalid", 'email: "bad" is not a valid e-mail address'],
      [5, "repeat", "repeats line 2"],
      [6, "uncertain", undefined],
      [7, "finished", undefined],
    ]);
  });
});

describe("a candidate of client.invitations.bulk", () => {
  it("is checked and keyed as a row of a file is", () => {
    const checked = prepareCandidate({ email: " Ann.Lee@Plan.example ", name: " Ann Lee " });
    expect(checked).toEqual(candidateRow("Ann.Lee@Plan.example", "Ann Lee"));
    expect(checked).toMatchObject({
      key: "ann.lee@plan.example",
      json: '{"email":"Ann.Lee@Plan.example","name":"Ann Lee"}',
    });
    expect(prepareCandidate({ email: "nope", name: " " })).toEqual({
      invalid: candidateProblems("nope", "").join("; "),
    });
    expect(candidateProblems("nope", "")).toEqual([
      'email: "nope" is not a valid e-mail address',
      "name: empty",
    ]);
  });
});
