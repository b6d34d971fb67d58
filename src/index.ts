// The package's entry as Probot loads an app (`probot run`): the MAGIS app with its settings from the environment.
import { magisApp } from "./app/magis-app.js";

export { magisApp } from "./app/magis-app.js";
export type { MagisAppOptions, MagisServices } from "./app/service-types.js";

export default magisApp();
