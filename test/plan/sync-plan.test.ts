/**
 * The sync plan's matching and comparison rules (src/bulk/plan/sync.ts), on records shaped as the real service
 * answers (fixtures/real/employees/list-200.json: HRMS fields nested, dates without a zone) and as the sandbox
 * does (flat).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { changedFields, planSync, pruneLimit } from "../../src/bulk/plan/sync.js";
import { ROOT } from "../bulk/helpers.js";

const real = (
  JSON.parse(readFileSync(join(ROOT, "fixtures/real/employees/list-200.json"), "utf8")) as {
    items: Record<string, unknown>[];
  }
).items[0]!;

describe("planSync", () => {
  it("reads nested HRMS fields and zone-less dates: the same employee is unchanged", () => {
    const item = {
      email: "AN.NGUYEN@example.com",
      firstName: "An",
      lastName: "Nguyen",
      jobCode: "se-2",
      employeeHRMSInfo: {
        externalEmployeeId: "00123456",
        department: "Engineering",
        hireDate: "2021-04-01T00:00:00Z",
        customFieldWithValue: { costCenter: "CC-17" },
      },
    };
    expect(changedFields(item, real)).toEqual([]);
    expect(
      changedFields(
        {
          ...item,
          employeeHRMSInfo: {
            ...item.employeeHRMSInfo,
            hireDate: "2021-04-02T00:00:00Z",
            customFieldWithValue: { costCenter: "CC-18" },
          },
        },
        real,
      ),
    ).toEqual(["hireDate", "customFieldWithValue.costCenter"]);
  });

  it("matches on external id before e-mail, and an e-mail change is a change", () => {
    const plan = planSync(
      [
        {
          line: 2,
          item: { email: "an.new@example.com", employeeHRMSInfo: { externalEmployeeId: "00123456" } },
        },
      ],
      [real],
      { prune: true },
    );
    expect(plan.changed).toEqual([
      expect.objectContaining({ line: 2, employeeId: 123456, fields: ["email"] }),
    ]);
    expect(plan.prune).toEqual([]);
  });

  it("repeats and conflicts: one row per e-mail; a conflicting pair is neither sent", () => {
    const plan = planSync(
      [
        { line: 2, item: { email: "a@example.com", firstName: "A" } },
        { line: 3, item: { email: "A@example.com", firstName: "A" } },
        { line: 4, item: { email: "b@example.com", firstName: "B" } },
        { line: 5, item: { email: "b@example.com", firstName: "Bee" } },
      ],
      [],
    );
    expect(plan.new.map((r) => r.line)).toEqual([2]);
    expect(plan.repeat.map((r) => r.line)).toEqual([3]);
    expect(plan.conflict.map((r) => r.line).sort()).toEqual([4, 5]);
  });

  it("prunes only active employees no row matched, never one whose row was invalid", () => {
    const service = [
      { employeeId: 1, email: "kept@example.com", status: "Active" },
      { employeeId: 2, email: "gone@example.com", status: "Active" },
      { employeeId: 3, email: "away@example.com", status: "OnLeave" },
      { employeeId: 4, email: "broken@example.com", status: "Active" },
    ];
    const plan = planSync([{ line: 2, item: { email: "kept@example.com" } }], service, {
      prune: true,
      keep: [{ email: "broken@example.com" }],
    });
    expect(plan.prune).toEqual([{ employeeId: 2, email: "gone@example.com" }]);
    expect(plan.active).toBe(3);
    expect(pruneLimit(34)).toBe(3);
    expect(pruneLimit(34, 7)).toBe(7);
  });
});
