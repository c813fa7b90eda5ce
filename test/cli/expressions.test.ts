import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT } from '../../src/cli/io.ts';
import { run } from './run.ts';

describe('sbkit expressions', () => {
  it('prints the canonical URL and each expression with hash and prefix', async () => {
    const { status, out } = await run(['expressions', 'HTTP://Malware.SBTEST.example:8080']);
    assert.equal(status, EXIT.SAFE);
    assert.match(out, /^canonical URL: http:\/\/malware\.sbtest\.example\/$/m);
    assert.match(
      out,
      /^malware\.sbtest\.example\/\s+bfd00f8e\s+v9APjg==\s+bfd00f8e2fe3c810bd449e28af095aa010d0ebc11875a2bab2f19b9147cf086f$/m,
    );
    assert.match(out, /^sbtest\.example\/\s/m);
  });

  it('prints JSON with --json', async () => {
    const { status, out } = await run(['expressions', '--json', 'http://a.b.com/1/2.html?param=1']);
    assert.equal(status, EXIT.SAFE);
    const report = JSON.parse(out) as { canonicalUrl: string; expressions: { expression: string; prefixHex: string; sha256: string }[] };
    assert.equal(report.canonicalUrl, 'http://a.b.com/1/2.html?param=1');
    assert.equal(report.expressions.length, 8);
    assert.equal(report.expressions[0]!.expression, 'a.b.com/1/2.html?param=1');
    for (const e of report.expressions) assert.equal(e.sha256.slice(0, 8), e.prefixHex);
  });

  it('exits 4 with a clear message on an unusable URL', async () => {
    const { status, out, err } = await run(['expressions', 'javascript:alert(1)']);
    assert.equal(status, EXIT.INVALID_INPUT);
    assert.equal(out, '');
    assert.match(err, /invalid URL "javascript:alert\(1\)": the scheme "javascript" is not http or https/);
  });

  it('exits 4 when the URL is missing', async () => {
    const { status, err } = await run(['expressions']);
    assert.equal(status, EXIT.INVALID_INPUT);
    assert.match(err, /missing required argument 'url'/);
  });

  it('has help', async () => {
    const { status, out } = await run(['expressions', '--help']);
    assert.equal(status, EXIT.SAFE);
    assert.match(out, /Usage: sbkit expressions \[options\] <url>/);
  });
});
