#!/usr/bin/env node
// The `sbkit` command. Node 22.1 and later keep the code they compile in a disk cache, which makes
// every later start faster; it has to be switched on before the CLI's modules load, hence the late import.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
