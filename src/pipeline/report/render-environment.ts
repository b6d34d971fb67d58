import type { HostTally, NetworkTally } from "../../sandbox/sandbox.js";
import { cell, codeCell, details, fence, neutralize, table } from "../../lib/markdown.js";
import type { EnvironmentReport } from "../types.js";

/** Hosts named in a sentence before "and N more". */
const HOSTS_NAMED = 5;

/** Rows of the hosts' table before "and N more": a pull request's body holds 65,536 characters at most. */
const TABLE_ROWS = 50;

/**
 * The environment in one sentence, for the status comment's checklist and the pull request: where it was declared,
 * whether it was built or reused and how long it took to be ready, and whether it was kept. "Environment from
 * .devcontainer/devcontainer.json: built in 42 s (onCreateCommand, postCreateCommand), kept for later jobs".
 */
export function describeEnvironment(report: EnvironmentReport): string {
  const from = `Environment from ${report.source}`;
  if (report.failed) return `${from}: not ready: ${report.failed}`;
  const steps = report.steps.length > 0 ? ` (${report.steps.join(", ")})` : "";
  const how =
    report.how === "reused"
      ? `reused (kept under ${report.key}), ready in ${seconds(report.readySeconds)}${report.steps.length > 0 ? ` after its maintenance${steps}` : ""}`
      : `built in ${seconds(report.readySeconds)}${steps}`;
  const kept = !report.kept ? "" : report.kept.kept ? ", kept for later jobs" : `, not kept: ${report.kept.why}`;
  const afresh = report.maintenanceFailed ? ` (the kept one was not used: ${report.maintenanceFailed})` : "";
  return `${from}: ${how}${afresh}${kept}`;
}

/**
 * What the setup reached and was refused through the proxy, as Copilot's firewall lists it: "setup reached 3 hosts
 * (registry.npmjs.org, …); refused 1 host (evil.example (not in MAGIS_SETUP_ALLOW_HOSTS))". Null when it had no network.
 */
export function describeSetupNetwork(network: NetworkTally | undefined): string | null {
  if (!network) return null;
  const { reached, refused } = network;
  const named = (hosts: HostTally[], why: boolean) => {
    const shown = hosts.slice(0, HOSTS_NAMED).map((host) => (why && host.why ? `${host.host} (${host.why})` : host.host));
    return hosts.length > HOSTS_NAMED ? `${shown.join(", ")} and ${hosts.length - HOSTS_NAMED} more` : shown.join(", ");
  };
  // Past the hosts the proxy names, it counts requests alone.
  const part = (hosts: HostTally[], other: number | undefined, why: boolean) =>
    [hosts.length > 0 ? `${plural(hosts.length, "host")} (${named(hosts, why)})` : "", other ? `${plural(other, "request")} to hosts not named` : ""]
      .filter(Boolean)
      .join(" and ");
  const reachedPart = reached.length === 0 && !network.otherReached ? "setup reached no host" : `setup reached ${part(reached, network.otherReached, false)}`;
  if (refused.length === 0 && !network.otherRefused) return reachedPart;
  return `${reachedPart}; refused ${part(refused, network.otherRefused, true)}`;
}

/**
 * The pull request's "Environment" section: the sentence, the hosts the setup reached and was refused (the first 50 in a
 * table, and how many more), what of the declaration was not done or not used, and the end of a failed step's output.
 */
export function renderEnvironment(report: EnvironmentReport): string {
  const lines = ["### Environment", "", `${neutralize(describeEnvironment(report))}.`];
  const network = describeSetupNetwork(report.network);
  if (network && report.network) {
    lines.push("", `The ${neutralize(network)}.`);
    const rows = [
      ...report.network.reached.map((host) => [cell(host.host), "reached", String(host.count), describeBytes(host.bytes)]),
      ...report.network.refused.map((host) => [cell(host.host), cell(`refused: ${host.why ?? "not allowed"}`), String(host.count), "—"]),
    ];
    const more = moreHosts(rows.length - TABLE_ROWS, report.network);
    if (rows.length > 0 || more)
      lines.push(
        "",
        details("Hosts the setup asked for", [table(["Host", "", "Requests", "Bytes"], rows.slice(0, TABLE_ROWS)), more].filter(Boolean).join("\n\n")),
      );
  }
  if (report.unsupported.length > 0) lines.push("", "Not done from the declaration:", "", ...report.unsupported.map((why) => `- ${neutralize(why)}`));
  if (report.shadowed.length > 0) lines.push("", "Also found, not used:", "", ...report.shadowed.map((why) => `- ${neutralize(why)}`));
  if (report.failedStep?.run.tail) lines.push("", details(`The end of \`${codeCell(report.failedStep.name)}\``, fence(report.failedStep.run.tail, "text")));
  return lines.join("\n");
}

/**
 * What the hosts' table leaves out: "And 12 more hosts not shown; and 340 requests to hosts the proxy did not name (120
 * reached, 220 refused)." Empty when it leaves nothing out.
 */
function moreHosts(unshown: number, network: NetworkTally): string {
  const reached = network.otherReached ?? 0;
  const refused = network.otherRefused ?? 0;
  const parts = [
    ...(unshown > 0 ? [`${plural(unshown, "more host")} not shown`] : []),
    ...(reached + refused > 0 ? [`${plural(reached + refused, "request")} to hosts the proxy did not name (${reached} reached, ${refused} refused)`] : []),
  ];
  return parts.length === 0 ? "" : `And ${parts.join("; and ")}.`;
}

function seconds(value: number): string {
  return value < 10 ? `${value.toFixed(1)} s` : `${Math.round(value)} s`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** A number of bytes as a person reads it: MB with one decimal from a megabyte up, kB below, bytes under a kilobyte. */
function describeBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} B`;
}
