// The GraphQL runtime, loaded by graphql-client.ts on the first GraphQL call (a dynamic import of
// this module), so that importing the package does not load graphql-request and graphql.
export { GraphQLClient } from 'graphql-request';
export { parse, print } from 'graphql';
