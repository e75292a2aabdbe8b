// The `runpod-gql/graphql` entry: generated documents and types only. It imports no GraphQL
// runtime, so a frontend that brings its own client pays for the document strings alone.
export * from './__generated__/operations.js';
