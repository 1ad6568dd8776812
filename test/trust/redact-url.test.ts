/**
 * redactUrl (src/redact.ts), through which `config list` and error messages show URLs, hides the whole
 * password of a `user:password@` as a URL parser reads it: a raw `@` in the password or the user name (the
 * parser takes the last `@` before the path) must not leave part or all of the password shown.
 */
import { describe, expect, it } from "vitest";
import { redactUrl } from "../../src/redact.js";

describe("redactUrl", () => {
  it("hides the password up to the last @ of the URL's authority", () => {
    const cases: Array<[string, string]> = [
      ["https://bob:hunter2pw@api.example.com/v3", "https://bob:****@api.example.com/v3"],
      ["https://user:p@ss@api.example.com", "https://user:****@api.example.com"],
      ["https://us@er:secret@api.example.com", "https://us@er:****@api.example.com"],
      ["at http://a:b@h1/x and ftp://c:d@e@h2?q=1", "at http://a:****@h1/x and ftp://c:****@h2?q=1"],
      ["https://user@host:8080/path@x", "https://user@host:8080/path@x"],
      ["https://host:8443/a:b@c", "https://host:8443/a:b@c"],
    ];
    for (const [given, shown] of cases) {
      expect(redactUrl(given), given).toBe(shown);
      // Whatever a URL parser reads as the password never shows.
      const password = URL.canParse(given) ? decodeURIComponent(new URL(given).password) : "";
      if (password) expect(redactUrl(given)).not.toContain(password);
    }
  });
});
