import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { EmulatedPod } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { readContractBody } from './contract.js';
import { accountOf, idParam, iso, stateOf, type Cluster, type RestV2Deps, type V2Context } from './context.js';
import { clusterPods, createPod, podStatus, podView } from './pods.js';

const DEFAULT_CLUSTER_IMAGE = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

interface CreateClusterBody {
  name: string;
  type: string;
  compute: { gpuTypeId: string; gpuCountPerPod: number; podCount: number };
  image?: string;
  templateId?: string;
  args?: string;
  cmd?: string[];
  entrypoint?: string[];
  disk?: number;
  env?: Record<string, string>;
  ports?: string[];
  dataCenterIds?: string[];
  mounts?: { persistent?: { size: number; path: string }; network?: Array<{ volumeId: string; path: string }> };
  startJupyter?: boolean;
  startSsh?: boolean;
}

export function clusterRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();
  const find = (c: V2Context) => {
    const cluster = stateOf(accountOf(c)).clusters.get(idParam(c));
    if (!cluster) throw notFound('cluster', idParam(c));
    return cluster;
  };
  const view = (c: V2Context, cluster: Cluster) => {
    const pods = clusterPods(deps, c, cluster.id).sort((a, b) => cluster.podIds.indexOf(a.id) - cluster.podIds.indexOf(b.id));
    const byStatus: Record<string, number> = {};
    for (const pod of pods) byStatus[podStatus(platform, pod)] = (byStatus[podStatus(platform, pod)] ?? 0) + 1;
    const primary = pods[0];
    return {
      id: cluster.id,
      name: cluster.name,
      type: cluster.type,
      compute: { ...cluster.compute },
      // The contract's `template` is the id of the template the pods came from (omitted without one).
      ...(cluster.templateId && { template: cluster.templateId }),
      dataCenterId: cluster.dataCenterId,
      pods: { total: pods.length, byStatus },
      network: { cidr: '10.65.0.0/16' },
      ...(primary && { primary: { podId: primary.id, status: podStatus(platform, primary) } }),
      createdAt: iso(cluster.createdAt),
    };
  };

  app.get('/clusters', (c) => c.json({ clusters: [...stateOf(accountOf(c)).clusters.values()].map((cl) => view(c, cl)) }));

  app.post('/clusters', async (c) => {
    const body = await readContractBody<CreateClusterBody>(c.req, 'CreateClusterRequest');
    const id = newId(12);
    const created: EmulatedPod[] = [];
    try {
      for (let rank = 0; rank < body.compute.podCount; rank++) {
        // Every node after the first goes where the first went: a cluster lives in one data centre.
        const dataCenterIds = created[0] ? [platform.host(created[0].hostId).dataCenterId] : body.dataCenterIds;
        const pod = createPod(
          deps,
          c,
          {
            name: `${body.name}-${rank}`,
            ...(body.templateId ? { templateId: body.templateId } : { image: body.image ?? DEFAULT_CLUSTER_IMAGE }),
            args: body.args,
            ...(body.cmd && { cmd: body.cmd }),
            ...(body.entrypoint && { entrypoint: body.entrypoint }),
            disk: body.disk,
            env: body.env,
            ports: body.ports,
            gpu: { id: body.compute.gpuTypeId, count: body.compute.gpuCountPerPod },
            dataCenterIds,
            mounts: body.mounts,
            startJupyter: body.startJupyter,
            startSsh: body.startSsh,
          },
          { cluster: { id, rank } },
        );
        created.push(pod);
      }
    } catch (err) {
      for (const pod of created) platform.terminatePod(accountOf(c), pod.id);
      throw err;
    }
    const cluster: Cluster = {
      id,
      name: body.name,
      type: body.type,
      compute: { ...body.compute },
      image: body.image,
      templateId: body.templateId,
      dataCenterId: platform.host(created[0]!.hostId).dataCenterId,
      podIds: created.map((p) => p.id),
      createdAt: platform.clock.now(),
    };
    stateOf(accountOf(c)).clusters.set(id, cluster);
    return c.json(view(c, cluster), 201);
  });

  app.get('/clusters/:id', (c) => c.json(view(c, find(c))));
  app.patch('/clusters/:id', async (c) => {
    const cluster = find(c);
    const body = await readContractBody<{ name?: string }>(c.req, 'UpdateClusterRequest');
    if (body.name !== undefined) cluster.name = body.name;
    return c.json(view(c, cluster));
  });
  app.delete('/clusters/:id', (c) => {
    const cluster = find(c);
    for (const pod of clusterPods(deps, c, cluster.id)) platform.terminatePod(accountOf(c), pod.id);
    stateOf(accountOf(c)).clusters.delete(cluster.id);
    return c.body(null, 204);
  });
  app.get('/clusters/:id/pods', (c) => c.json({ pods: clusterPods(deps, c, find(c).id).map((p) => podView(platform, p)) }));
  return app;
}

