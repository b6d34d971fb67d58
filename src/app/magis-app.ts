import type { ApplicationFunction } from "probot";
import { UNINSTALL_EVENTS } from "../triggers/rules/on-uninstalled.js";
import { createServices, probotHost } from "./create-services.js";
import type { MagisAppOptions } from "./service-types.js";

/** The MAGIS Probot app: records its triggers as they arrive, decides about them afterwards, and starts the job queue. */
export function magisApp(options: MagisAppOptions = {}): ApplicationFunction {
  return async (app) => {
    const services = createServices(probotHost(app), options);
    app.on(services.desk.events, services.desk.receive);
    app.on([...UNINSTALL_EVENTS], services.forgetUninstalled);
    options.seams?.onReady?.(services);
    await services.start();
  };
}
