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
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
