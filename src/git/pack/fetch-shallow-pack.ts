import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { GatheredPack } from "./gather-pack.js";
import type { PackBytes } from "./pack-file.js";
import { FLUSH, PktLineReader, pktLine } from "./pkt-lines.js";

/**
 * What one shallow fetch brought: the branch's commit, the pack holding its tree (or, with a `have` commit, what of
 * it the caller lacks; null when the branch is still at that commit), and the commits cut off at depth 1.
 */
export interface ShallowPack {
  head: string;
  pack: PackBytes | null;
  shallow: string[];
  /** Whether the server acknowledged the `have` commit; when not (it no longer has it), the pack holds the whole tree. */
  common: boolean;
}

/** A repository's refs advertisement, and what every upload-pack request to it is sent with. */
export interface AdvertisedRefs {
  /** The repository's address without a trailing slash, as messages name it (it holds no credentials). */
  base: string;
  /** The Authorization and User-Agent headers. */
  headers: Record<string, string>;
  refs: Map<string, string>;
  capabilities: Set<string>;
}

/** Called with the advertisement and the branch's commit before the clone asks for its pack, so a second request can share them. */
export type Alongside = (advertised: AdvertisedRefs, head: string) => void;

/** Where the bytes of an answer's pack go as they come (a PackArriving reads them on the way); by default they are gathered in memory. */
export interface PackSink {
  add(part: Buffer): void;
  readonly received: number;
  /** Every byte that came. */
  pack(): PackBytes;
}

// Side-band channels of the pack's answer: the pack itself, progress text, and a fatal error.
const PACK_DATA = 1;
const SERVER_ERROR = 3;

/**
 * Fetches one commit of `branch` and everything it holds, as `git clone --depth 1 --single-branch` does, over git's
 * smart HTTP protocol (version 0, stateless): the refs advertisement, then one upload-pack request that wants the
 * branch's commit at depth 1. The token goes in an Authorization header only. The pack is returned whole, unchecked:
 * indexPack verifies it. `alongside` may start another request on the same advertisement (see fetchHistoryPack).
 * `have` is a commit the caller already holds with its tree, and nothing older (a previous shallow clone's head): the
 * request says so (`shallow` and `have`), and the pack holds only the objects of the branch's commit that are not
 * in that commit's tree, as `git fetch --depth 1` into an earlier shallow clone asks. `into` sees the pack's bytes
 * as they come.
 */
export async function fetchShallowPack(http: HttpClient, request: ShallowFetch): Promise<ShallowPack> {
  const { url, token, branch, maxBytes = Infinity, alongside, have, into } = request;
  const base = url.replace(/\/+$/, "");
  const headers = {
    authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
    "user-agent": "git/magis",
  };
  const advertised = await againIfDropped(http, { url: `${base}/info/refs?service=git-upload-pack`, method: "GET", headers });
  refuseFailure(advertised, base);
  const { refs, capabilities } = await readAdvertisement(advertised, base);
  refuseObjectFormat(capabilities, base);
  const head = refs.get(`refs/heads/${branch}`);
  if (!head) throw new Error(`the repository at ${base} has no branch '${branch}'`);
  if (!capabilities.has("shallow")) throw new Error(`the git server at ${base} cannot send a shallow clone (it lacks the 'shallow' capability)`);
  // Without thin-pack, git sends the whole tree of a shallow client whatever it has; thin, a pack needs completing (see indexThinPack).
  const wanted = wantedCapabilities(capabilities, base, ["ofs-delta", "shallow", ...(have ? ["thin-pack"] : [])]);
  alongside?.({ base, headers, refs, capabilities }, head);
  if (have === head) return { head, pack: null, shallow: [head], common: true };
  // The server is told where the caller's history stops, as git's own fetch tells it: a `have` alone claims every
  // ancestor of that commit as held too.
  const held = have ? { shallow: [pktLine(`shallow ${have}\n`)], have: [pktLine(`have ${have}\n`)] } : { shallow: [], have: [] };
  const body = [pktLine(`want ${head} ${wanted}\n`), ...held.shallow, pktLine("deepen 1\n"), FLUSH, ...held.have, pktLine("done\n")];
  return {
    head,
    ...(await requestPack(http, {
      to: { base, headers },
      body,
      limits: {
        maxBytes,
        overLimit: `the git server at ${base} sent more than ${Math.round(maxBytes / 2 ** 20)} MB for one commit, more than the repository's size allows; the clone stopped there`,
        noPack: `the git server at ${base} ended its answer without a pack; try again later`,
      },
      into,
    })),
  };
}

/** What fetchShallowPack asks for: the branch's head commit and its tree, within `maxBytes`. */
export interface ShallowFetch {
  url: string;
  token: string;
  branch: string;
  /** Most bytes of pack taken (default: no bound). */
  maxBytes?: number;
  /** Told the advertisement and the head, before the pack is asked for (a history fetched alongside reuses them). */
  alongside?: Alongside;
  /** A commit whose tree the caller holds already: only what the head adds to it is sent. */
  have?: string;
  /** Where the pack's bytes go as they arrive (default: gathered in memory, or a file past the bound). */
  into?: PackSink;
}

/**
 * Fetches the history of `head` since `since` (seconds since 1970) without file contents, on an advertisement a
 * clone already read: one upload-pack request that wants the commit with `deepen-since` and `filter blob:none`, as
 * `git fetch --shallow-since=… --filter=blob:none` asks. The pack holds the commits made since then and their
 * trees; `shallow` names the oldest of them, whose parents were not sent. With `have`, a commit whose history since
 * then the caller already holds (see keptHistory), the pack holds only the commits `head` adds to it and the trees
 * they bring: `common` says whether the server knew that commit (when not, the pack is the whole history). Throws,
 * saying why, when the server cannot send such a history, sends more than `maxBytes`, or has nothing to send.
 */
export async function fetchHistoryPack(
  http: HttpClient,
  advertised: AdvertisedRefs,
  { head, since, maxBytes, have }: { head: string; since: number; maxBytes: number; have?: string },
): Promise<{ pack: PackBytes; shallow: string[]; common: boolean }> {
  const { base, capabilities } = advertised;
  for (const needed of ["shallow", "deepen-since"]) {
    if (!capabilities.has(needed)) throw new Error(`the git server at ${base} cannot send the history since a date (it lacks the '${needed}' capability)`);
  }
  if (!capabilities.has("filter")) {
    throw new Error(
      `the git server at ${base} cannot send history without file contents (it lacks the 'filter' capability; a git server sends it with uploadpack.allowFilter)`,
    );
  }
  const wanted = wantedCapabilities(capabilities, base, ["ofs-delta", "shallow", "deepen-since", "filter"]);
  // No `shallow` line goes with the `have`: the server takes every ancestor of it as held, and sends none of them.
  const held = have ? [pktLine(`have ${have}\n`)] : [];
  const body = [
    pktLine(`want ${head} ${wanted}\n`),
    pktLine(`deepen-since ${Math.floor(since)}\n`),
    pktLine("filter blob:none\n"),
    FLUSH,
    ...held,
    pktLine("done\n"),
  ];
  return requestPack(http, {
    to: advertised,
    body,
    limits: {
      maxBytes,
      overLimit: `the git server at ${base} sent more than ${describeBytes(maxBytes)} of history, the most a checkout reads; the history was left out`,
      // git's upload-pack ends without a word when no commit is as recent as the date.
      noPack: `the git server at ${base} sent no history since ${new Date(since * 1000).toISOString().slice(0, 10)}: the branch may have no commit that recent`,
    },
  });
}

/**
 * Refuses a repository whose objects are named with another hash than SHA-1 (`object-format=sha256`, which git
 * advertises for a repository made with `--object-format=sha256`): every id this client reads and writes is SHA-1's
 * (see gitHash), and its refs would otherwise read as no branch at all.
 */
function refuseObjectFormat(capabilities: Set<string>, base: string): void {
  const format = [...capabilities].find((capability) => capability.startsWith("object-format="))?.slice("object-format=".length);
  if (format === undefined || format === "sha1") return;
  const named = format === "sha256" ? "SHA-256" : `'${format}'`;
  throw new Error(
    `the repository at ${base} uses ${named} object names, which MAGIS does not support yet: it reads repositories that use SHA-1, git's default`,
  );
}

/** The capabilities a request asks for, as its want line lists them: a side band (which this client needs), `extra` where offered, no progress, and the agent. */
function wantedCapabilities(capabilities: Set<string>, base: string, extra: string[]): string {
  const band = capabilities.has("side-band-64k") ? "side-band-64k" : capabilities.has("side-band") ? "side-band" : null;
  if (!band) throw new Error(`the git server at ${base} cannot send a pack on a side band, which this client needs`);
  return [band, ...extra.filter((c) => capabilities.has(c)), ...(capabilities.has("no-progress") ? ["no-progress"] : []), "agent=magis"].join(" ");
}

/** How much pack an answer may hold, and what to say when it holds more (`overLimit`) or none (`noPack`). */
interface PackLimits {
  maxBytes: number;
  overLimit: string;
  noPack: string;
}

/** Sends one upload-pack request and reads its answer (see readPackAnswer). */
async function requestPack(
  http: HttpClient,
  { to, body, limits, into = new GatheredPack() }: { to: Pick<AdvertisedRefs, "base" | "headers">; body: Buffer[]; limits: PackLimits; into?: PackSink },
): Promise<{ pack: PackBytes; shallow: string[]; common: boolean }> {
  const answered = await againIfDropped(http, {
    url: `${to.base}/git-upload-pack`,
    method: "POST",
    headers: { ...to.headers, "content-type": "application/x-git-upload-pack-request", accept: "application/x-git-upload-pack-result" },
    // An array is sent whole with a Content-Length (isomorphic-git's Node client streams other bodies through a
    // CommonJS module it cannot load from ESM); its type says iterator, and an array iterates.
    body: body as unknown as AsyncIterableIterator<Uint8Array>,
  });
  refuseFailure(answered, to.base);
  return readPackAnswer(answered, to.base, limits, into);
}

/**
 * Sends a request, and once more if its connection was dropped before any answer came (ECONNRESET, EPIPE): a socket
 * kept alive from an earlier request that the server closed just as it was reused. Both requests of a fetch only
 * read, so asking again is safe; an abort, a timeout or an answer of any status is not asked again.
 */
async function againIfDropped(http: HttpClient, request: GitHttpRequest): Promise<GitHttpResponse> {
  try {
    return await http.request(request);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "ECONNRESET" && code !== "EPIPE") throw error;
    return http.request(request);
  }
}

/** A number of bytes as a person reads it: whole MiB from one MiB up, KiB or bytes below. */
function describeBytes(bytes: number): string {
  if (bytes >= 2 ** 20) return `${Math.round(bytes / 2 ** 20)} MB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/** Throws a message that says what to do when the server did not answer 200. */
function refuseFailure(response: GitHttpResponse, base: string): void {
  if (response.statusCode === 200) return;
  const status = `HTTP ${response.statusCode} ${response.statusMessage ?? ""}`.trim();
  if (response.statusCode === 401 || response.statusCode === 403) {
    throw new Error(`the git server refused the credentials for ${base} (${status}): the installation token may have expired or lack access to the repository`);
  }
  if (response.statusCode === 404) throw new Error(`there is no git repository at ${base} (${status}): it may have been renamed or deleted`);
  throw new Error(`the git server at ${base} answered ${status}; try again later`);
}

/** The refs and capabilities of an upload-pack advertisement (`# service=…`, a flush, then one ref per line, the first with capabilities after a NUL). */
async function readAdvertisement(response: GitHttpResponse, base: string): Promise<{ refs: Map<string, string>; capabilities: Set<string> }> {
  const type = response.headers?.["content-type"] ?? "";
  if (!type.startsWith("application/x-git-upload-pack-advertisement") || !response.body) {
    throw new Error(`${base} did not answer as a git smart HTTP server (content type '${type}'); check the repository's address`);
  }
  const reader = new PktLineReader(response.body, `the refs of ${base}`);
  const refs = new Map<string, string>();
  let capabilities = new Set<string>();
  for (let line = await reader.next(), section = 0; line !== undefined && section < 2; line = await reader.next()) {
    if (line === "flush") {
      section++;
      continue;
    }
    const text = line.toString("utf8").replace(/\n$/, "");
    if (text.startsWith("# service=")) continue;
    if (text.startsWith("ERR ")) throw new Error(`the git server at ${base} refused to list the repository's branches: ${text.slice(4)}`);
    const [ref, caps] = text.split("\0");
    if (caps !== undefined) capabilities = new Set(caps.split(" "));
    const [oid, name] = ref!.split(" ");
    if (oid && name && /^[0-9a-f]{40}$/.test(oid)) refs.set(name, oid);
  }
  return { refs, capabilities };
}

/** Reads the upload-pack answer: `shallow` lines and a flush, `NAK`, then the pack on side band 1 until a flush; more than `maxBytes` of lines in all is refused. */
async function readPackAnswer(
  response: GitHttpResponse,
  base: string,
  { maxBytes, overLimit, noPack }: PackLimits,
  pack: PackSink,
): Promise<{ pack: PackBytes; shallow: string[]; common: boolean }> {
  if (!response.body) throw new Error(`the git server at ${base} sent no pack`);
  const reader = new PktLineReader(response.body, `the pack of ${base}`);
  const shallow: string[] = [];
  let received = 0;
  let acknowledged = false;
  let common = false;
  for (let line = await reader.next(); line !== undefined; line = await reader.next()) {
    if (line === "flush") {
      if (acknowledged) break;
      continue;
    }
    // Every line counts, not only the pack's: endless shallow lines or progress would otherwise never reach the limit.
    received += line.length;
    if (received > maxBytes) throw new Error(overLimit);
    if (!acknowledged) {
      const text = line.toString("utf8").trim();
      if (text.startsWith("shallow ")) shallow.push(text.slice("shallow ".length));
      else if (text === "NAK" || text.startsWith("ACK")) {
        acknowledged = true;
        common = text.startsWith("ACK");
      } else if (text.startsWith("ERR ")) throw new Error(`the git server at ${base} refused the fetch: ${text.slice(4)}`);
      else if (!text.startsWith("unshallow ")) throw new Error(`the git server at ${base} sent '${text.slice(0, 80)}' where a shallow line or NAK belongs`);
      continue;
    }
    if (line[0] === PACK_DATA) {
      pack.add(line.subarray(1));
    } else if (line[0] === SERVER_ERROR)
      throw new Error(`the git server at ${base} failed while sending the pack: ${line.subarray(1).toString("utf8").trim()}`);
  }
  if (pack.received === 0) throw new Error(noPack);
  return { pack: pack.pack(), shallow, common };
}
