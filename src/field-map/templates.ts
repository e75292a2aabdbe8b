// PodTemplate and its mutations. The parent object is REST v2's `Template` (`GET /v2/templates/{id}`).
import { ServerError } from '../errors.js';
import { CREATE_MARKER_ENV } from '../transport/create-marker.js';
import { call, derived, holding, informational, decisive, path, readPath, type FieldEntry, type FieldMap } from './types.js';

// `at(rest, key)`: one step into a REST object, without trusting its shape.
const at = readPath;

/**
 * A REST answer whose field has the wrong shape: a typed error for that field, never a TypeError.
 * The value is left out of the error (an env value can be a credential).
 */
export const wrongShape = (field: string, expected: string): ServerError =>
  new ServerError(`REST v2 answered ${field} that is not ${expected}`, { status: 200 });

/**
 * REST v2's `env` (`{ KEY: value }`) as GraphQL's `[EnvironmentVariable]` (`[{ key, value }]`).
 * Templates and endpoints share it; `Pod.env` is another shape (`["KEY=value"]`, the pod map's).
 * The create marker the client adds to what it creates is its own, not the caller's: left out.
 */
export function envEntries(rest: unknown): { key: string; value: string }[] | null {
  const env = at(rest, 'env');
  if (env === null || env === undefined) return null;
  if (typeof env !== 'object' || Array.isArray(env) || Object.values(env).some((v) => typeof v !== 'string')) throw wrongShape('env', 'an object of strings');
  return Object.entries(env as Record<string, string>)
    .filter(([key]) => key !== CREATE_MARKER_ENV)
    .map(([key, value]) => ({ key, value }));
}

/** REST v2's `ports` (`["8888/http", "22/tcp"]`) as GraphQL's one comma-separated string. */
export function portsJoined(rest: unknown): string | null {
  const ports = at(rest, 'ports');
  if (ports === null || ports === undefined) return null;
  if (!Array.isArray(ports) || ports.some((p) => typeof p !== 'string')) throw wrongShape('ports', 'a list of strings');
  return ports.join(',');
}

const persistent = (rest: unknown): unknown => at(at(rest, 'mounts'), 'persistent');

/** The value at `key` when it is of `kind` (absent or null: null), else a typed error naming `field`. */
export function typedAt(rest: unknown, key: string, kind: 'number' | 'string', field: string): number | string | null {
  const value = at(rest, key);
  if (value === undefined || value === null) return null;
  if (typeof value !== kind) throw wrongShape(field, `a ${kind}`);
  return value as number | string;
}

export const templateDerivations = {
  envEntries,
  portsJoined,
  // GraphQL answers 0 for a template with no volume; REST v2 leaves `mounts.persistent` out.
  templateVolumeInGb: (rest: unknown) => (persistent(rest) === undefined ? 0 : typedAt(persistent(rest), 'size', 'number', 'mounts.persistent.size')),
  templateVolumeMountPath: (rest: unknown) => typedAt(persistent(rest), 'path', 'string', 'mounts.persistent.path'),
} satisfies Readonly<Record<string, (rest: unknown) => unknown>>;

export const templateQueryFields: Readonly<Record<string, FieldEntry>> = {
  podTemplate: holding('PodTemplate', call(['GET /v2/templates/{id}'])),
};

export const templateMutationFields: Readonly<Record<string, FieldEntry>> = {
  // With `input.id`, an update (PATCH); without, a create sent once (create marker in its env).
  saveTemplate: holding('PodTemplate', call(['POST /v2/templates', 'PATCH /v2/templates/{id}'])),
  // REST v2 deletes by id: the name is looked up in the account's templates first.
  deleteTemplate: call(['GET /v2/templates', 'DELETE /v2/templates/{id}']),
};

export const templateTypes: FieldMap = {
  // The pairs `envEntries` makes of REST v2's env object (templates and endpoints alike): a value
  // may be a secret, so only `write` reads either part.
  EnvironmentVariable: {
    rest: null,
    scope: 'write',
    fields: { key: path('key'), value: path('value') },
  },
  PodTemplate: {
    rest: 'Template',
    scope: 'read',
    fields: {
      advancedStart: decisive(),
      containerDiskInGb: path('disk'),
      containerRegistryAuthId: path('registry'),
      dockerArgs: path('args'),
      earned: decisive(),
      // Template env values are often credentials (HF_TOKEN=…): only a write token reads them.
      env: holding('EnvironmentVariable', derived('envEntries', ['env'], 'write')),
      id: path('id'),
      imageName: path('image'),
      isPublic: path('public'),
      isRunpod: decisive(),
      isServerless: path('serverless'),
      boundEndpointId: decisive(),
      name: path('name'),
      ports: derived('portsJoined', ['ports']),
      portsConfig: decisive(),
      readme: informational('REST v2 templates have no readme'),
      runtimeInMin: informational('REST v2 templates have no run-time figure (a statistic for the template\'s page)'),
      startJupyter: path('startJupyter'),
      startScript: decisive(),
      startSsh: path('startSsh'),
      volumeInGb: derived('templateVolumeInGb', ['mounts.persistent.size']),
      volumeMountPath: derived('templateVolumeMountPath', ['mounts.persistent.path']),
      config: decisive(),
      category: path('category'),
      userId: decisive(),
      presentationOrder: informational('REST v2 templates have no presentation order (the console\'s sort)'),
    },
  },
};
