export { demoCatalog } from '../../src/server/demo.ts';
