#!/usr/bin/env node
// The `sbkit` command. Node 22.1 and later keep the code they compile in a disk cache, which makes
// every later start faster; it has to be switched on before the CLI's modules load, hence the late import.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// A reader that stops early (`sbkit status | head -1`) closes the pipe: what was written is all it
// wanted, so the command ends there, quietly and with status 0 (the EXIT.SAFE of io.ts), rather than
// with a stack trace. Node ignores SIGPIPE, so the closed pipe shows only as this error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
// Node 22.12 calls WebCrypto's X25519, which the HPKE of the OHTTP gateway uses, experimental and says
// so on stderr at every start (22.13 and later call it stable); that one warning is dropped, and every
// other goes to Node's own printer.
const printWarning = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && warning.message.includes('X25519')) return;
  for (const print of printWarning) print(warning);
});
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
