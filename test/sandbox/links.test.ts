import { describe, expect, it } from "vitest";
import { useSandbox } from "./helpers.js";

const { c } = useSandbox();

const validity = {
  scheduleType: "validityindays",
  scheduleDetails: { invitationValidityInDays: 5, timeZoneId: 1720 },
};

describe("test links", () => {
  it("lists and gets links in the documented shape of links", async () => {
    const list = await c.api("GET", "/v3/tests/1001/testlinks");
    expect(list.status).toBe(200);
    expect(list.json.testLinks.map((l: { testLinkId: number }) => l.testLinkId)).toEqual([3001, 3002, 3003]);
    const one = await c.api("GET", "/v3/tests/1001/testlinks/3001");
    expect(one.json).toEqual({
      testLinkId: 3001,
      testId: 1001,
      testLinkName: "Campus drive",
      testLink: expect.stringMatching(/^https:\/\/sandbox\.assess\.invalid\/l\//),
      testLinkStatus: "active",
      invitationType: "email",
      isApiLink: false,
      proctoringSettings: { proctoringMode: "disabled" },
      stakeholderEmails: null,
      invitationSchedule: {
        scheduleType: "validityindays",
        scheduleDetails: {
          invitationValidityInDays: 7,
          startDateTime: null,
          endDateTime: null,
          timeZoneId: 1720,
        },
      },
    });
    const missing = await c.api("GET", "/v3/tests/1001/testlinks/3004");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ statusCode: 404, message: "Test link not found" });
  });

  it("creates a link with defaults (proctoring disabled, status active, isApiLink false)", async () => {
    const a = await c.api("POST", "/v3/tests/1003/testlinks", {
      body: { testLinkName: "Analyst drive", invitationType: "email", invitationSchedule: validity },
    });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      testId: 1003,
      testLinkName: "Analyst drive",
      testLinkStatus: "active",
      isApiLink: false,
      proctoringSettings: { proctoringMode: "disabled" },
    });
    expect(a.json.testLinkId).toBeGreaterThanOrEqual(3008);
    const open = await c.api("POST", "/v3/tests/1003/testlinks", {
      body: {
        testLinkName: "Open timebound",
        invitationType: "open",
        isApiLink: true,
        proctoringSettings: { proctoringMode: "video" },
        stakeholderEmails: "lead@acme.example",
        invitationSchedule: {
          scheduleType: "timebound",
          scheduleDetails: {
            startDateTime: "2025-07-01T09:00:00Z",
            endDateTime: "2025-07-02T09:00:00Z",
            timeZoneId: 1720,
          },
        },
      },
    });
    expect(open.status).toBe(200);
    expect(open.json).toMatchObject({ isApiLink: true, stakeholderEmails: "lead@acme.example" });
    expect(open.json.invitationSchedule.scheduleDetails).toEqual({
      invitationValidityInDays: null,
      startDateTime: "2025-07-01T09:00:00Z",
      endDateTime: "2025-07-02T09:00:00Z",
      timeZoneId: 1720,
    });
  });

  it("updates by merging the sent fields", async () => {
    const a = await c.api("POST", "/v3/tests/1002/testlinks/3004", { body: { testLinkStatus: "inactive" } });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      testLinkId: 3004,
      testLinkName: "Backend hiring",
      testLinkStatus: "inactive",
    });
    const b = await c.api("POST", "/v3/tests/1002/testlinks/3004", {
      body: { invitationSchedule: { scheduleType: "slotwise" } },
    });
    expect(b.status).toBe(400);
    expect(b.json.errors).toEqual([
      "startDateTime is required for scheduleType slotwise",
      "endDateTime is required for scheduleType slotwise",
    ]);
    // A refused update leaves the link as it was.
    const now = await c.api("GET", "/v3/tests/1002/testlinks/3004");
    expect(now.json.invitationSchedule.scheduleType).toBe("validityindays");
  });

  it("answers the permissible-value messages", async () => {
    const base = { testLinkName: "X", invitationType: "email", invitationSchedule: validity };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, invitationType: "sms" }, "Invitation Type field value is outside of permissible value"],
      [
        { ...base, proctoringSettings: { proctoringMode: "audio" } },
        "Proctoring Mode field value is outside of permissible value",
      ],
      [
        { ...base, invitationSchedule: { scheduleType: "weekly" } },
        "Schedule Type field value is outside of permissible value",
      ],
      [{ ...base, testLinkStatus: "paused" }, "Test Link Status field value is outside of permissible value"],
    ];
    for (const [body, message] of cases) {
      const a = await c.api("POST", "/v3/tests/1001/testlinks", { body });
      expect(a.status, message).toBe(400);
      expect(a.json).toEqual({ errors: [message] });
    }
  });

  it("requires the fields of the schedule type and the create fields", async () => {
    const missing = await c.api("POST", "/v3/tests/1001/testlinks", { body: {} });
    expect(missing.json).toEqual({
      errors: ["testLinkName is required", "invitationType is required", "invitationSchedule is required"],
    });
    const days = await c.api("POST", "/v3/tests/1001/testlinks", {
      body: {
        testLinkName: "X",
        invitationType: "email",
        invitationSchedule: { scheduleType: "validityindays" },
      },
    });
    expect(days.json).toEqual({
      errors: [
        "timeZoneId is required for scheduleType validityindays",
        "invitationValidityInDays is required for scheduleType validityindays",
      ],
    });
    const window = await c.api("POST", "/v3/tests/1001/testlinks", {
      body: {
        testLinkName: "X",
        invitationType: "open",
        invitationSchedule: {
          scheduleType: "timebound",
          scheduleDetails: {
            startDateTime: "2025-07-02T09:00:00Z",
            endDateTime: "2025-07-01T09:00:00",
            timeZoneId: 1,
          },
        },
      },
    });
    expect(window.json).toEqual({ errors: ["endDateTime must be in the format YYYY-MM-DDTHH:mm:ssZ"] });
  });
});
