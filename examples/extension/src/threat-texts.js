// How each threat type is named to people and what its advisory says. SB-3: a warning never claims a page
// *is* dangerous ("suspected", "may", "potentially"), and every threat type has an advisory.

/** @type {Record<string, { title: string, text: string }>} */
export const ADVISORIES = {
  SOCIAL_ENGINEERING: {
    title: 'Suspected phishing (social engineering)',
    text: 'This page may try to trick you into giving away passwords, card numbers or other personal information, or into installing software, often by pretending to be a site you trust.',
  },
  MALWARE: {
    title: 'Suspected malware',
    text: 'This page may try to install software that harms your device, spies on you or steals information.',
  },
  UNWANTED_SOFTWARE: {
    title: 'Potentially unwanted software',
    text: 'This page may offer software that changes your browser or computer in ways you may not expect or want, such as your home page or search engine.',
  },
  POTENTIALLY_HARMFUL_APPLICATION: {
    title: 'Potentially harmful application',
    text: 'This page may offer apps for phones and tablets that could harm the device or misuse your data.',
  },
};

/** Google's page about its Safe Browsing warnings, credited only when the server's lists come from Google (SB-3). */
export const GOOGLE_ADVISORY = 'https://developers.google.com/safe-browsing/v4/advisory';

export const NOTICE =
  'Safe Browsing is not perfect: safe sites are sometimes flagged (false positives) and unsafe sites are sometimes missed (false negatives).';

/** The settings the options page keeps, and their defaults. */
export const DEFAULT_SETTINGS = { server: 'http://127.0.0.1:8080', apiKey: '', googleData: false };
