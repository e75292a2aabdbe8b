// `runpod-gql gateway`: serves RunPod's GraphQL schema with the key held here (src/gateway/).
// The flags are parsed by src/gateway/node.ts, the one place they are defined (its usage text is
// this command's --help).
import type { Command } from 'commander';
import type { CommandGroup } from '../program.js';

export const gateway: CommandGroup = (program) => {
  program
    .command('gateway')
    .description('serve the GraphQL schema over HTTP with the key held here: tokens, CORS, persisted documents (--help)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[flags...]')
    .action(async function (this: Command) {
      // Loaded only when used: the gateway (graphql-js, Hono) would slow every other command's start.
      const { GATEWAY_USAGE, parseGatewayArgs, serveGateway } = await import('../../gateway/node.js');
      if (this.args.includes('--help') || this.args.includes('-h')) {
        console.log(GATEWAY_USAGE);
        return;
      }
      await serveGateway(parseGatewayArgs(this.args));
    });
};
