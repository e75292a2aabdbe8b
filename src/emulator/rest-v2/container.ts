// A container's settings as pod, template and endpoint bodies give them, and the command they run:
// read by the pod, template and serverless routes alike.

/** The container fields create and update bodies share (the contract's BaseContainerConfig). */
export interface ContainerFields {
  image?: string;
  args?: string;
  disk?: number;
  env?: Record<string, string>;
  ports?: string[];
  registry?: string | null;
  cmd?: string[];
  entrypoint?: string[];
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * The entrypoint and command a body sets: its own `entrypoint` and `cmd`, else those of an `args`
 * given as `{"entrypoint":[..],"cmd":[..]}` JSON (the contract's stored raw command). A shell-string
 * `args` sets neither: it stays the raw command, as given.
 */
export function commandOf(body: ContainerFields): { entrypoint?: string[] | undefined; cmd?: string[] | undefined } {
  let raw: Record<string, unknown> = {};
  if (body.args?.trimStart().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(body.args);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
    } catch {
      /* a shell string that starts with a brace */
    }
  }
  return { entrypoint: body.entrypoint ?? (isStrings(raw.entrypoint) ? raw.entrypoint : undefined), cmd: body.cmd ?? (isStrings(raw.cmd) ? raw.cmd : undefined) };
}
