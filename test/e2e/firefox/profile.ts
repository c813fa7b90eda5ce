// The Firefox profile of one end-to-end run: a user.js that points one Safe Browsing provider (google5 for
// v5, google4 for v4) at an sbkit server and keeps everything else off the network. See docs/firefox.md.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Protocol = 'v5' | 'v4';

/** A literal dummy key: the placeholder %GOOGLE_SAFEBROWSING_API_KEY% would send the distribution's key. */
const DUMMY_KEY = 'sbkit-e2e-dummy-key';

type PrefValue = string | number | boolean;

/** The provider URLs Firefox uses for `protocol`, as docs/api.md §5 gives them. */
function providerUrls(protocol: Protocol, base: string, key = DUMMY_KEY): { updateURL: string; gethashURL: string } {
  if (protocol === 'v5') {
    return {
      updateURL: `${base}/v5/hashLists:batchGet?key=${key}`,
      gethashURL: `${base}/v5/hashes:search?key=${key}`,
    };
  }
  return {
    updateURL: `${base}/v4/threatListUpdates:fetch?$ct=application/x-protobuf&key=${key}&$httpMethod=POST`,
    gethashURL: `${base}/v4/fullHashes:find?$ct=application/x-protobuf&key=${key}&$httpMethod=POST`,
  };
}

export interface ProfileOptions {
  protocol: Protocol;
  /** Base URL Firefox sends its Safe Browsing requests to (no trailing slash). */
  server: string;
  /**
   * Set `…nextupdatetime` to "1" (a time long past) so that the first list update fires at once instead of
   * after Firefox's 3 s + random 0–60 s start-up delay. False: keep Firefox's own delay.
   */
  immediateUpdate: boolean;
}

/** The prefs of the Safe Browsing provider under test, and of the ones that must stay quiet. */
function safeBrowsingPrefs(options: ProfileOptions): Record<string, PrefValue> {
  const v5 = options.protocol === 'v5';
  const provider = v5 ? 'google5' : 'google4';
  const urls = providerUrls(options.protocol, options.server);
  const prefs: Record<string, PrefValue> = {
    'browser.safebrowsing.phishing.enabled': true,
    'browser.safebrowsing.malware.enabled': true,
    'browser.safebrowsing.blockedURIs.enabled': true,
    'browser.safebrowsing.update.enabled': true,
    'browser.safebrowsing.debug': true,
    'browser.dom.window.dump.enabled': true,
    // google5 owns every goog-*-proto table when enabled, so the v4 run must turn it off.
    'browser.safebrowsing.provider.google5.enabled': v5,
    [`browser.safebrowsing.provider.${provider}.updateURL`]: urls.updateURL,
    [`browser.safebrowsing.provider.${provider}.gethashURL`]: urls.gethashURL,
    'browser.safebrowsing.provider.google4.excludeFromGoogleSafeBrowsingKeyCheck': true,
    'browser.safebrowsing.provider.google5.excludeFromGoogleSafeBrowsingKeyCheck': true,
    // Legacy providers: blank, so that they never try the network.
    'browser.safebrowsing.provider.google.updateURL': '',
    'browser.safebrowsing.provider.google.gethashURL': '',
    'browser.safebrowsing.provider.mozilla.updateURL': '',
    'browser.safebrowsing.provider.mozilla.gethashURL': '',
    // Remote download verdicts and threat-hit reports go to Google hosts.
    'browser.safebrowsing.downloads.remote.enabled': false,
    'browser.safebrowsing.provider.google4.dataSharing.enabled': false,
  };
  if (!v5) {
    // The provider that is not under test: blank too, so that a mistake cannot reach Google.
    prefs['browser.safebrowsing.provider.google5.updateURL'] = '';
    prefs['browser.safebrowsing.provider.google5.gethashURL'] = '';
  } else {
    prefs['browser.safebrowsing.provider.google4.updateURL'] = '';
    prefs['browser.safebrowsing.provider.google4.gethashURL'] = '';
  }
  if (options.immediateUpdate) prefs[`browser.safebrowsing.provider.${provider}.nextupdatetime`] = '1';
  return prefs;
}

/** Everything that would otherwise reach the (closed) network or open extra pages. */
const QUIET_PREFS: Readonly<Record<string, PrefValue>> = {
  // First-run and start-up pages.
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.startup.page': 0,
  'browser.startup.homepage': 'about:blank',
  'startup.homepage_welcome_url': '',
  'startup.homepage_welcome_url.additional': '',
  'browser.aboutwelcome.enabled': false,
  'trailhead.firstrun.didSeeAboutWelcome': true,
  'datareporting.policy.firstRunURL': '',
  'datareporting.policy.dataSubmissionPolicyBypassNotification': true,
  'browser.sessionstore.resume_from_crash': false,
  'toolkit.startup.max_resumed_crashes': -1,
  'browser.tabs.warnOnClose': false,
  'browser.newtabpage.enabled': false,
  'browser.newtabpage.activity-stream.feeds.section.topstories': false,
  'browser.newtabpage.activity-stream.feeds.topsites': false,
  'browser.newtabpage.activity-stream.feeds.snippets': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  'browser.newtabpage.activity-stream.default.sites': '',
  'browser.topsites.contile.enabled': false,
  'browser.discovery.enabled': false,
  // Telemetry and data reporting.
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'toolkit.telemetry.shutdownPingSender.enabled': false,
  'toolkit.telemetry.firstShutdownPing.enabled': false,
  'toolkit.telemetry.newProfilePing.enabled': false,
  'toolkit.telemetry.updatePing.enabled': false,
  'toolkit.telemetry.bhrPing.enabled': false,
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'browser.ping-centre.telemetry': false,
  'browser.crashReports.unsubmittedCheck.enabled': false,
  // Glean (FOG) uploads on its own, e.g. a deletion-request ping when upload is off: -1 stops it.
  'telemetry.fog.test.localhost_port': -1,
  // Captive portal and connectivity checks.
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'captivedetect.canonicalURL': '',
  // Application, add-on and plugin updates.
  'app.update.auto': false,
  'app.update.enabled': false,
  'app.update.checkInstallTime': false,
  'app.update.disabledForTesting': true,
  'extensions.update.enabled': false,
  'extensions.update.autoUpdateDefault': false,
  'extensions.getAddons.cache.enabled': false,
  'extensions.blocklist.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'extensions.systemAddon.update.url': '',
  'media.gmp-manager.url': '',
  'media.gmp-gmpopenh264.enabled': false,
  'media.gmp-widevinecdm.enabled': false,
  'media.gmp-widevinecdm.allow-chromium-update': false,
  'media.gmp-manager.chromium-update-url': '',
  'media.gmp-provider.enabled': false,
  // Remote settings, studies, experiments.
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'security.remote_settings.crlite_filters.enabled': false,
  'security.remote_settings.intermediates.enabled': false,
  'app.normandy.enabled': false,
  'app.normandy.api_url': '',
  'app.shield.optoutstudies.enabled': false,
  'messaging-system.rsexperimentloader.enabled': false,
  'browser.translations.enable': false,
  'browser.ml.enable': false,
  // Search region, geolocation, push, accounts, suggestions.
  'browser.region.update.enabled': false,
  'browser.region.network.url': '',
  'browser.search.geoip.url': '',
  'browser.search.update': false,
  'geo.provider.network.url': '',
  'dom.push.connection.enabled': false,
  'dom.push.serverURL': '',
  'identity.fxaccounts.enabled': false,
  'browser.urlbar.quicksuggest.enabled': false,
  'browser.urlbar.suggest.quicksuggest.sponsored': false,
  'browser.urlbar.suggest.quicksuggest.nonsponsored': false,
  // Speculative connections, prefetching, DNS over HTTPS.
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.predictor.enabled': false,
  'network.http.speculative-parallel-limit': 0,
  'network.trr.mode': 5,
  'security.OCSP.enabled': 0,
};

function prefLine(name: string, value: PrefValue): string {
  return `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});`;
}

/** The text of user.js for `options`. */
function userJs(options: ProfileOptions): string {
  const lines = [
    `// sbkit Firefox end-to-end run (${options.protocol}): Safe Browsing against ${options.server}`,
    ...Object.entries(safeBrowsingPrefs(options)).map(([k, v]) => prefLine(k, v)),
    '',
    '// Keep Firefox off the network.',
    ...Object.entries(QUIET_PREFS).map(([k, v]) => prefLine(k, v)),
  ];
  return `${lines.join('\n')}\n`;
}

/** Creates a fresh temporary profile directory holding only user.js; returns its path. */
export async function createProfile(options: ProfileOptions): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `sbkit-firefox-${options.protocol}-`));
  await writeFile(join(dir, 'user.js'), userJs(options));
  return dir;
}
