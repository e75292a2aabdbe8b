import { ValidationError } from '../errors.js';

/** This package's version; `test/package/release-version.test.ts` keeps it equal to package.json's and the CHANGELOG's newest release. */
export const VERSION = '0.6.0';

/** An app built on this client, named after it in the User-Agent: `appInfo: { name: 'my-app', version: '1.2.0' }`. */
export interface AppInfo {
  readonly name: string;
  readonly version?: string | undefined;
}

interface RuntimeGlobals {
  Deno?: { version?: { deno?: string }; build?: { os?: string } };
  Bun?: { version?: string };
  process?: { versions?: { node?: string }; platform?: string };
  navigator?: { userAgent?: string };
  window?: unknown;
  WorkerGlobalScope?: unknown;
}

// A product token (RFC 9110): no space, slash, parenthesis or other separator.
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

/**
 * `runpod-gql/<version> (<runtime> <version>; <platform>)`, then `<app>/<version>` when given; undefined
 * in a browser (or a browser's worker), which forbids setting User-Agent. Read from globals only:
 * no `node:` import, so the core stays portable. Nothing else about the machine is sent.
 */
export function userAgent(appInfo?: AppInfo, g: RuntimeGlobals = globalThis as RuntimeGlobals): string | undefined {
  const { Deno: deno, Bun: bun, process: proc } = g;
  let runtime: string;
  if (deno?.version?.deno) runtime = `deno ${deno.version.deno}; ${deno.build?.os ?? 'unknown'}`;
  else if (bun?.version) runtime = `bun ${bun.version}; ${proc?.platform ?? 'unknown'}`;
  else if (proc?.versions?.node) runtime = `node ${proc.versions.node}; ${proc.platform ?? 'unknown'}`;
  else if (g.window !== undefined || g.WorkerGlobalScope !== undefined) return undefined;
  else runtime = g.navigator?.userAgent === 'Cloudflare-Workers' ? 'workerd; unknown' : 'unknown; unknown';
  const app = appInfo ? ` ${appInfo.name}${appInfo.version ? `/${appInfo.version}` : ''}` : '';
  return `runpod-gql/${VERSION} (${runtime})${app}`;
}

/** `appInfo` must be an object whose name (and version, if any) is a product token. */
export function checkAppInfo(value: unknown): void {
  if (value == null) return;
  const info = value as Partial<AppInfo>;
  if (typeof value !== 'object' || typeof info.name !== 'string' || !TOKEN.test(info.name)) {
    throw new ValidationError('appInfo.name', 'must be 1 to 64 letters, digits or !#$%&\'*+.^_`|~- (a product token)');
  }
  if (info.version != null && (typeof info.version !== 'string' || !TOKEN.test(info.version))) {
    throw new ValidationError('appInfo.version', 'must be 1 to 64 letters, digits or !#$%&\'*+.^_`|~- (a product token)');
  }
}
