/** `assign-learning` with a resource and the skill it teaches assigns that resource once. */
import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

describe("employees assign-learning", () => {
  it("a resource named and reached again through its skill is assigned once", async () => {
    const r = await t.run([
      "employees",
      "assign-learning",
      "501",
      "--resource",
      "lr-101",
      "--skill",
      "Python",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ids = r
      .json<{ assigned: { learningResourceId: string }[] }>()
      .assigned.map((a) => a.learningResourceId);
    expect(ids).toEqual(["lr-101"]);
    // A skill with a resource of its own still adds it.
    const both = await t.run([
      "employees",
      "assign-learning",
      "501",
      "--resource",
      "lr-101",
      "--skill",
      "AWS",
      "--json",
    ]);
    expect(
      both.json<{ assigned: { learningResourceId: string }[] }>().assigned.map((a) => a.learningResourceId),
    ).toEqual(["lr-101", "lr-102"]);
  });
});
