// The v4 messages (docs/api.md §2), generated from google/security/safebrowsing/v4/safebrowsing.proto by
// `npm run generate`. Import from here rather than from gen/ so the generated layout can change freely.
export * from './gen/google/security/safebrowsing/v4/safebrowsing_pb.ts';
