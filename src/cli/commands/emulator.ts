// `runpod-gql emulator`: serves the local emulator for other programs until interrupted.
import type { Command } from 'commander';
import { RunpodError } from '../../index.js';
import type { CommandGroup } from '../program.js';
import { corsOrigin, port, type GlobalOptions } from '../options.js';

interface EmulatorOptions extends GlobalOptions {
  port: number;
  host: string;
  corsOrigin?: string[];
  graphqlRetired?: boolean;
}

export const emulator: CommandGroup = (program) => {
  program
    .command('emulator')
    .description('serve the local emulator for other programs until interrupted')
    .option('--port <n>', 'port (0 picks a free one)', port, 8787)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--cors-origin <origin>', 'let pages from this origin call it, e.g. http://localhost:5173 (repeatable; * for any; default: loopback origins)', corsOrigin)
    .option('--graphql-retired', 'retire GraphQL as production will: every /graphql request answers 410 Gone (REST v2 and serverless keep working)')
    .action(async function (this: Command) {
      await serveEmulator(this.optsWithGlobals<EmulatorOptions>());
    });
};

async function serveEmulator(options: EmulatorOptions): Promise<void> {
  const [{ createEmulator }, { listen }] = await Promise.all([import('../../emulator/index.js'), import('../../emulator/node.js')]);
  const origins = options.corsOrigin;
  const emulator = createEmulator({ corsOrigins: origins?.includes('*') ? '*' : origins, graphqlRetired: options.graphqlRetired === true });
  const server = await listen(emulator, { port: options.port, host: options.host }).catch((err: NodeJS.ErrnoException) => {
    emulator.dispose();
    throw new RunpodError(`cannot serve on ${options.host}:${options.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`);
  });
  const { apiKey } = server.clientOptions();
  const env = { RUNPOD_API_KEY: apiKey, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
  if (options.json) {
    console.log(JSON.stringify({ url: server.url, graphqlUrl: server.graphqlUrl, graphqlRetired: options.graphqlRetired === true, restUrl: server.restUrl, serverlessUrl: server.serverlessUrl, apiKey, env }));
  } else {
    console.log(`runpod-gql emulator listening on ${server.url}
  graphqlUrl     ${server.graphqlUrl}${options.graphqlRetired ? '   (retired: answers 410 Gone)' : ''}
  restUrl        ${server.restUrl}
  serverlessUrl  ${server.serverlessUrl}   (public endpoints: echo, sleep, fail, stream)
  apiKey         ${apiKey}

  createRunpodClient({ apiKey: '${apiKey}', graphqlUrl: '${server.graphqlUrl}', restUrl: '${server.restUrl}', serverlessUrl: '${server.serverlessUrl}' })
  or, for later runpod-gql commands in another shell:
  export ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}
Press Ctrl+C to stop.`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
