/**
 * Runs `body` with these environment variables set (undefined: unset), then puts the environment back
 * as it was: for commands run in this process, which read `process.env`.
 */
export async function withEnvironment<T>(variables: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(variables);
  try {
    return await body();
  } finally {
    set(saved);
  }
}
