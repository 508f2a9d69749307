// Entry module of the Worker: workerd calls the default export's `fetch` and finds the Durable
// Object class by its exported name. (STYLE.md has no default exports; the Workers module format
// requires this one, so it lives alone here.)
import { worker } from "./worker.js";

export { PendingConfirmation } from "./pending-confirmation.js";
export default worker;
