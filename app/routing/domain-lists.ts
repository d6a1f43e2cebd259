/**
 * The domain halves of the region presets and the ad list, shipped with the app. Each entry names
 * where it comes from, so the list can be checked and kept up to date by hand: the region lists
 * follow v2fly/domain-list-community (the lists v2rayN's and Hiddify's region presets build on),
 * cut to the well-known services that refuse foreign addresses or are only worth reaching
 * directly. Entries use the core's `domain:` syntax (the name and every subdomain).
 */
import type { RegionPreset } from '../../shared/routing';

export interface SourcedDomain {
  domain: string;
  what: string;
  source: string;
}

const DLC = 'v2fly/domain-list-community';

export interface RegionDomains {
  /** Country-code top-level domains (Unicode ones are converted to their xn-- form when written). */
  tlds: string[];
  services: SourcedDomain[];
}

export const REGION_DOMAINS: Record<Exclude<RegionPreset, 'global'>, RegionDomains> = {
  ir: {
    tlds: ['ir', 'ایران'],
    services: [
      { domain: 'aparat.com', what: 'Aparat video', source: `${DLC} data/aparat` },
      { domain: 'filimo.com', what: 'Filimo video', source: `${DLC} data/filimo` },
      { domain: 'telewebion.com', what: 'Telewebion TV', source: `${DLC} data/category-media-ir` },
      { domain: 'cinematicket.org', what: 'cinema tickets', source: `${DLC} data/category-media-ir` },
      { domain: 'digikala.com', what: 'Digikala shop', source: `${DLC} data/category-shopping-ir` },
      { domain: 'digikalajet.com', what: 'Digikala delivery', source: `${DLC} data/category-shopping-ir` },
      { domain: 'torob.com', what: 'Torob price search', source: `${DLC} data/category-shopping-ir` },
      { domain: 'sheypoor.com', what: 'Sheypoor classifieds', source: `${DLC} data/category-shopping-ir` },
      { domain: 'neshan.org', what: 'Neshan maps', source: `${DLC} data/category-ir` },
      { domain: 'varzesh3.com', what: 'Varzesh3 sport news', source: `${DLC} data/category-ir` },
      { domain: 'tgju.org', what: 'gold and currency prices', source: `${DLC} data/category-ir` },
      { domain: 'jobinja.com', what: 'Jobinja jobs', source: `${DLC} data/category-ir` },
      { domain: 'karnameh.com', what: 'car market', source: `${DLC} data/category-ir` },
      { domain: 'saipacorp.com', what: 'SAIPA (car maker)', source: `${DLC} data/category-ir` },
    ],
  },
  ru: {
    tlds: ['ru', 'su', 'рф'],
    services: [
      { domain: 'yandex.net', what: 'Yandex services and CDN', source: `${DLC} data/yandex` },
      { domain: 'yandex.com', what: 'Yandex', source: `${DLC} data/yandex` },
      { domain: 'yastatic.net', what: 'Yandex static content', source: `${DLC} data/yandex` },
      { domain: 'vk.com', what: 'VKontakte', source: `${DLC} data/vk` },
      { domain: 'userapi.com', what: 'VKontakte media', source: `${DLC} data/vk` },
      { domain: 'vk.me', what: 'VK messenger', source: `${DLC} data/vk` },
      { domain: 'mycdn.me', what: 'Odnoklassniki / VK video CDN', source: `${DLC} data/mailru-group` },
      { domain: 'moex.com', what: 'Moscow Exchange', source: `${DLC} data/category-ru` },
      { domain: 'ngenix.net', what: 'NGENIX CDN of Russian sites', source: `${DLC} data/category-ru` },
      { domain: 'taxsee.com', what: 'taxi service', source: `${DLC} data/category-ru` },
      { domain: 'yclients.com', what: 'online booking', source: `${DLC} data/category-ru` },
      { domain: 'ru.com', what: 'Russian sites on ru.com', source: `${DLC} data/category-ru` },
    ],
  },
  cn: {
    tlds: ['cn', '中国'],
    services: [
      { domain: 'baidu.com', what: 'Baidu', source: `${DLC} data/baidu` },
      { domain: 'bdstatic.com', what: 'Baidu static content', source: `${DLC} data/baidu` },
      { domain: 'qq.com', what: 'Tencent QQ / WeChat', source: `${DLC} data/tencent` },
      { domain: 'gtimg.com', what: 'Tencent static content', source: `${DLC} data/tencent` },
      { domain: 'taobao.com', what: 'Taobao', source: `${DLC} data/alibaba` },
      { domain: 'tmall.com', what: 'Tmall', source: `${DLC} data/alibaba` },
      { domain: 'alipay.com', what: 'Alipay', source: `${DLC} data/alibaba` },
      { domain: 'alicdn.com', what: 'Alibaba CDN', source: `${DLC} data/alibaba` },
      { domain: 'aliyun.com', what: 'Alibaba Cloud', source: `${DLC} data/aliyun` },
      { domain: 'jd.com', what: 'JD.com', source: `${DLC} data/jd` },
      { domain: 'bilibili.com', what: 'Bilibili', source: `${DLC} data/bilibili` },
      { domain: 'hdslb.com', what: 'Bilibili media', source: `${DLC} data/bilibili` },
      { domain: 'weibo.com', what: 'Weibo', source: `${DLC} data/sina` },
      { domain: 'zhihu.com', what: 'Zhihu', source: `${DLC} data/zhihu` },
      { domain: '163.com', what: 'NetEase', source: `${DLC} data/netease` },
      { domain: 'douyin.com', what: 'Douyin', source: `${DLC} data/bytedance` },
    ],
  },
};

/**
 * Ad and tracker domains blocked by `blockAds`: a short, well-known selection from
 * v2fly/domain-list-community `data/category-ads-all` (its -ads lists), including the regions'
 * own ad networks. Whole domains only, so nothing a site needs to work is caught.
 */
export const AD_DOMAINS: SourcedDomain[] = [
  ...['doubleclick.net', 'googlesyndication.com', 'googleadservices.com', 'google-analytics.com', 'app-measurement.com'].map((domain) => ({
    domain,
    what: 'Google ads and analytics',
    source: `${DLC} data/google-ads`,
  })),
  { domain: 'amazon-adsystem.com', what: 'Amazon ads', source: `${DLC} data/amazon-ads` },
  { domain: 'adnxs.com', what: 'Xandr (AppNexus) ads', source: `${DLC} data/category-ads` },
  { domain: 'criteo.com', what: 'Criteo ads', source: `${DLC} data/category-ads` },
  { domain: 'taboola.com', what: 'Taboola ads', source: `${DLC} data/category-ads` },
  { domain: 'outbrain.com', what: 'Outbrain ads', source: `${DLC} data/category-ads` },
  { domain: 'scorecardresearch.com', what: 'comScore tracking', source: `${DLC} data/category-ads` },
  { domain: 'moatads.com', what: 'Moat ad measurement', source: `${DLC} data/category-ads` },
  { domain: 'adsrvr.org', what: 'The Trade Desk ads', source: `${DLC} data/category-ads` },
  { domain: 'pubmatic.com', what: 'PubMatic ads', source: `${DLC} data/category-ads` },
  { domain: 'rubiconproject.com', what: 'Magnite ads', source: `${DLC} data/category-ads` },
  { domain: 'casalemedia.com', what: 'Index Exchange ads', source: `${DLC} data/category-ads` },
  { domain: 'hotjar.com', what: 'Hotjar tracking', source: `${DLC} data/category-ads` },
  { domain: 'yandexadexchange.net', what: 'Yandex ads', source: `${DLC} data/yandex-ads` },
  { domain: 'adfox.ru', what: 'Yandex ADFOX ads', source: `${DLC} data/yandex-ads` },
  { domain: 'tapsell.ir', what: 'Tapsell ads (Iran)', source: `${DLC} data/category-ads-ir` },
  { domain: 'adivery.com', what: 'Adivery ads (Iran)', source: `${DLC} data/category-ads-ir` },
  { domain: 'tanx.com', what: 'Alimama ads (China)', source: `${DLC} data/alibaba-ads` },
  { domain: 'mmstat.com', what: 'Alibaba tracking (China)', source: `${DLC} data/alibaba-ads` },
];
