import { Hono } from 'hono';
import { notFound } from '../errors.js';
import type { EmulatedNetworkVolume } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { dataCenters } from './catalog.js';
import { readContractBody } from './contract.js';
import { accountOf, idParam, stateOf, type RestV2Deps, type V2Context } from './context.js';
import { problem } from './problem.js';


export function networkVolumeRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();
  const volumeView = (c: V2Context, v: EmulatedNetworkVolume) => ({ id: v.id, name: v.name, size: v.size, dataCenter: v.dataCenterId, type: stateOf(accountOf(c)).volumeTypes.get(v.id) ?? 'STANDARD' });
  const find = (c: V2Context) => {
    const volume = accountOf(c).networkVolumes.get(idParam(c));
    if (!volume) throw notFound('network volume', idParam(c));
    return volume;
  };

  app.get('/network-volumes', (c) => c.json({ networkVolumes: [...accountOf(c).networkVolumes.values()].map((v) => volumeView(c, v)) }));
  app.post('/network-volumes', async (c) => {
    const body = await readContractBody<{ name: string; size: number; dataCenter: string; type?: string }>(c.req, 'CreateNetworkVolumeRequest');
    const dc = dataCenters(platform).find((d) => d.id === body.dataCenter);
    if (!dc) throw problem(400, `Unknown data center '${body.dataCenter}'.`);
    const type = body.type ?? 'STANDARD';
    if (!dc.networkVolumeTypes.includes(type)) throw problem(400, `Data center ${dc.id} offers no ${type} network volumes.`);
    const volume = platform.createNetworkVolume(accountOf(c), { name: body.name, size: body.size, dataCenterId: body.dataCenter });
    stateOf(accountOf(c)).volumeTypes.set(volume.id, type);
    return c.json(volumeView(c, volume), 201);
  });
  app.get('/network-volumes/:id', (c) => c.json(volumeView(c, find(c))));
  app.patch('/network-volumes/:id', async (c) => {
    const volume = find(c);
    const body = await readContractBody<{ name?: string; size?: number }>(c.req, 'UpdateNetworkVolumeRequest');
    return c.json(volumeView(c, platform.updateNetworkVolume(accountOf(c), volume.id, body)));
  });
  app.delete('/network-volumes/:id', (c) => {
    platform.deleteNetworkVolume(accountOf(c), find(c).id);
    return c.body(null, 204);
  });
  return app;
}
