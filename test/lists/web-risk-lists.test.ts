import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ThreatType } from '../../src/proto/webrisk.ts';
import {
  DEFAULT_WEB_RISK_LISTS,
  WEB_RISK_THREAT_TYPE_NAMES,
  webRiskListAlias,
  webRiskThreatTypeName,
  webRiskThreatTypeNumber,
  webRiskTypeOfAlias,
  NoWebRiskListError,
  webRiskThreatTypeOf,
} from '../../src/lists/web-risk-lists.ts';
import { knownList, WEB_RISK_THREAT_LISTS } from '../../src/lists/known-lists.ts';
import { listNameProblem } from '../../src/lists/list-name.ts';

describe('Web Risk threat types', () => {
  it('are numbered as the generated enum numbers them', () => {
    for (const name of WEB_RISK_THREAT_TYPE_NAMES) {
      assert.equal(webRiskThreatTypeNumber(name), ThreatType[name]);
      assert.equal(webRiskThreatTypeName(ThreatType[name]), name);
    }
    assert.equal(webRiskThreatTypeName(ThreatType.THREAT_TYPE_UNSPECIFIED), undefined);
    assert.equal(webRiskThreatTypeName(42), undefined);
  });

  it('name their lists by an alias no v5 request can spell, and back', () => {
    for (const name of WEB_RISK_THREAT_TYPE_NAMES) {
      const alias = webRiskListAlias(ThreatType[name])!;
      assert.equal(listNameProblem(alias), 'characters');
      assert.equal(webRiskTypeOfAlias(alias), name);
    }
    assert.equal(webRiskListAlias(0), undefined);
    assert.equal(webRiskTypeOfAlias('mw-4b'), undefined);
    assert.equal(webRiskTypeOfAlias('webrisk:PHISHING'), undefined);
  });

  it('default to the known 4-byte lists of the same threat type', () => {
    for (const [type, list] of Object.entries(DEFAULT_WEB_RISK_LISTS)) {
      if (list === undefined) continue;
      const known = knownList(list);
      assert.equal(known?.width, 4);
      assert.deepEqual(known?.holds, { threatType: type });
    }
  });

  it('are the lists a Web Risk client keeps, each known by its name and alias; others have none', () => {
    assert.deepEqual(
      [...WEB_RISK_THREAT_LISTS].sort(),
      Object.values(DEFAULT_WEB_RISK_LISTS)
        .filter((list) => list !== undefined)
        .sort(),
    );
    assert.equal(webRiskThreatTypeOf('se'), 'SOCIAL_ENGINEERING');
    assert.equal(webRiskThreatTypeOf('uws-4b'), 'UNWANTED_SOFTWARE');
    for (const name of ['gc-32b', 'pha-4b', 'uwsa-4b', 'mwb-4b', 'webrisk:MALWARE']) {
      assert.throws(
        () => webRiskThreatTypeOf(name),
        (err: unknown) => err instanceof NoWebRiskListError && err.code === 'SBKIT_NO_WEB_RISK_LIST',
      );
    }
  });
});
