// The Web Risk v1 messages, generated from google/cloud/webrisk/v1/webrisk.proto by `npm run generate`.
// Import from here rather than from gen/ so the generated layout can change freely.
export * from './gen/google/cloud/webrisk/v1/webrisk_pb.ts';
