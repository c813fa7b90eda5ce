// The v5 messages (docs/api.md §1), generated from google/security/safebrowsing/v5/safebrowsing.proto by
// `npm run generate`. Import from here rather than from gen/ so the generated layout can change freely.
export * from './gen/google/security/safebrowsing/v5/safebrowsing_pb.ts';
