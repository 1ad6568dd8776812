import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TestLinkBody } from "../../src/api/schemas.js";
import {
  diffBodies,
  INVITATION_TYPES,
  LINK_STATUSES,
  type LinkSpec,
  PROCTORING_MODES,
  SCHEDULE_TYPES,
  specFromLink,
  toBody,
} from "../../src/commands/links/spec.js";

const second = fc
  .integer({ min: Date.UTC(2020, 0, 1) / 1000, max: Date.UTC(2040, 0, 1) / 1000 })
  .map((s) => new Date(s * 1000));
const spec: fc.Arbitrary<LinkSpec> = fc.record(
  {
    name: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""),
    type: fc.constantFrom(...INVITATION_TYPES),
    proctoring: fc.constantFrom(...PROCTORING_MODES),
    schedule: fc.constantFrom(...SCHEDULE_TYPES),
    validityDays: fc.integer({ min: 1, max: 365 }),
    start: second,
    end: second,
    timezone: fc.integer({ min: 1, max: 100_000 }),
    stakeholders: fc.constant("hr@example.com"),
    status: fc.constantFrom(...LINK_STATUSES),
    apiLink: fc.boolean(),
  },
  { requiredKeys: ["schedule", "type"] },
);

describe("toBody (the documented body rules)", () => {
  it("sends only the schedule type's own fields, and isApiLink only for open links", () => {
    fc.assert(
      fc.property(spec, (s) => {
        const body = toBody(s);
        TestLinkBody.parse(body);
        const details = Object.keys(body.invitationSchedule?.scheduleDetails ?? {});
        const allowed =
          s.schedule === "validityindays"
            ? ["invitationValidityInDays", "timeZoneId"]
            : ["startDateTime", "endDateTime", "timeZoneId"];
        expect(details.every((key) => allowed.includes(key))).toBe(true);
        expect("isApiLink" in body).toBe(s.type === "open" && s.apiLink !== undefined);
        for (const key of ["startDateTime", "endDateTime"] as const) {
          const value = body.invitationSchedule?.scheduleDetails[key];
          if (value !== undefined) expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        }
      }),
    );
  });

  it("a link read back and sent again changes nothing", () => {
    fc.assert(
      fc.property(spec, (s) => {
        const body = toBody(s);
        const link = { testLinkId: 1, ...body, testLinkName: body.testLinkName ?? null };
        expect(diffBodies(body, toBody(specFromLink(link)))).toEqual([]);
      }),
    );
  });
});
