import { verb } from "../shared/verb.js";
import { linkArg, ofTest } from "./show.js";
import { setLinkStatus } from "./status.js";

export default verb({
  summary: "Stop candidates using a link (it is kept)",
  args: [linkArg()],
  flags: ofTest(),
  examples: ["assess links deactivate 3001 --test 1001"],
  run: (ctx, o, [testLinkId]) => setLinkStatus(ctx, o.test, testLinkId, "inactive"),
});
