import { verb } from "../shared/verb.js";
import { linkArg, ofTest } from "./show.js";
import { setLinkStatus } from "./status.js";

export default verb({
  summary: "Let candidates use a link again",
  args: [linkArg()],
  flags: ofTest(),
  examples: ["assess links activate 3001 --test 1001"],
  run: (ctx, o, [testLinkId]) => setLinkStatus(ctx, o.test, testLinkId, "active"),
});
