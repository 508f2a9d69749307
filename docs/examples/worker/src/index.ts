// Entry module of the Worker: workerd calls the default export's `fetch`. (STYLE.md has no default
// exports; the Workers module format requires this one, so it lives alone here.)
import { worker } from "./worker.js";

export default worker;
