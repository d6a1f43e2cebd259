/**
 * The lab's own geography: where each exit address "is". IP-info stand-ins answer from this table,
 * so a client that asks through server A1 learns A1's country, city and network, exactly as it
 * would from the real services.
 */
export interface Place {
  code: string;
  iso3: string;
  name: string;
  nameRu: string;
  nameFa: string;
  continent: string;
  continentCode: string;
  inEu: boolean;
  capital: string;
  region: string;
  regionCode: string;
  city: string;
  postal: string;
  latitude: number;
  longitude: number;
  timezone: string;
  timezoneAbbr: string;
  /** Standard-time offset in minutes (the lab ignores daylight saving). */
  utcOffsetMinutes: number;
  callingCode: string;
  borders: string;
  tld: string;
  currency: string;
  asn: number;
  org: string;
  isp: string;
  domain: string;
  /** The Cloudflare data centre (IATA code) a trace from here reports. */
  colo: string;
}

type Row = Omit<Place, 'continent' | 'inEu'> & { inEu?: boolean };

const CONTINENTS: Record<string, string> = {
  EU: 'Europe',
  AS: 'Asia',
  NA: 'North America',
  SA: 'South America',
  OC: 'Oceania',
  AF: 'Africa',
};

function place(row: Row): Place {
  return { ...row, inEu: row.inEu ?? false, continent: CONTINENTS[row.continentCode] ?? row.continentCode };
}

/** Server countries, in the order servers take them (rotated by the seed). */
export const PLACES: readonly Place[] = [
  place({ code: 'FI', iso3: 'FIN', name: 'Finland', nameRu: 'Финляндия', nameFa: 'فنلاند', continentCode: 'EU', inEu: true, capital: 'Helsinki', region: 'Uusimaa', regionCode: '18', city: 'Helsinki', postal: '00100', latitude: 60.1699, longitude: 24.9384, timezone: 'Europe/Helsinki', timezoneAbbr: 'EET', utcOffsetMinutes: 120, callingCode: '358', borders: 'NO,RU,SE', tld: '.fi', currency: 'EUR', asn: 24940, org: 'Hetzner Online GmbH', isp: 'Hetzner Online GmbH', domain: 'hetzner.com', colo: 'HEL' }),
  place({ code: 'NL', iso3: 'NLD', name: 'Netherlands', nameRu: 'Нидерланды', nameFa: 'هلند', continentCode: 'EU', inEu: true, capital: 'Amsterdam', region: 'North Holland', regionCode: 'NH', city: 'Amsterdam', postal: '1012', latitude: 52.374, longitude: 4.8897, timezone: 'Europe/Amsterdam', timezoneAbbr: 'CET', utcOffsetMinutes: 60, callingCode: '31', borders: 'BE,DE', tld: '.nl', currency: 'EUR', asn: 14061, org: 'DigitalOcean, LLC', isp: 'DigitalOcean, LLC', domain: 'digitalocean.com', colo: 'AMS' }),
  place({ code: 'DE', iso3: 'DEU', name: 'Germany', nameRu: 'Германия', nameFa: 'آلمان', continentCode: 'EU', inEu: true, capital: 'Berlin', region: 'Hesse', regionCode: 'HE', city: 'Frankfurt am Main', postal: '60313', latitude: 50.1109, longitude: 8.6821, timezone: 'Europe/Berlin', timezoneAbbr: 'CET', utcOffsetMinutes: 60, callingCode: '49', borders: 'AT,BE,CH,CZ,DK,FR,LU,NL,PL', tld: '.de', currency: 'EUR', asn: 16276, org: 'OVH SAS', isp: 'OVH SAS', domain: 'ovhcloud.com', colo: 'FRA' }),
  place({ code: 'US', iso3: 'USA', name: 'United States', nameRu: 'США', nameFa: 'آمریکا', continentCode: 'NA', capital: 'Washington D.C.', region: 'Virginia', regionCode: 'VA', city: 'Ashburn', postal: '20147', latitude: 39.0438, longitude: -77.4874, timezone: 'America/New_York', timezoneAbbr: 'EST', utcOffsetMinutes: -300, callingCode: '1', borders: 'CA,MX', tld: '.us', currency: 'USD', asn: 16509, org: 'Amazon.com, Inc.', isp: 'Amazon.com, Inc.', domain: 'amazon.com', colo: 'IAD' }),
  place({ code: 'JP', iso3: 'JPN', name: 'Japan', nameRu: 'Япония', nameFa: 'ژاپن', continentCode: 'AS', capital: 'Tokyo', region: 'Tokyo', regionCode: '13', city: 'Tokyo', postal: '100-0001', latitude: 35.6895, longitude: 139.6917, timezone: 'Asia/Tokyo', timezoneAbbr: 'JST', utcOffsetMinutes: 540, callingCode: '81', borders: '', tld: '.jp', currency: 'JPY', asn: 2516, org: 'KDDI CORPORATION', isp: 'KDDI CORPORATION', domain: 'kddi.com', colo: 'NRT' }),
  place({ code: 'TR', iso3: 'TUR', name: 'Turkey', nameRu: 'Турция', nameFa: 'ترکیه', continentCode: 'AS', capital: 'Ankara', region: 'Istanbul', regionCode: '34', city: 'Istanbul', postal: '34000', latitude: 41.0082, longitude: 28.9784, timezone: 'Europe/Istanbul', timezoneAbbr: '+03', utcOffsetMinutes: 180, callingCode: '90', borders: 'AM,AZ,BG,GE,GR,IQ,IR,SY', tld: '.tr', currency: 'TRY', asn: 9121, org: 'Turk Telekomunikasyon Anonim Sirketi', isp: 'Turk Telekom', domain: 'turktelekom.com.tr', colo: 'IST' }),
  place({ code: 'AE', iso3: 'ARE', name: 'United Arab Emirates', nameRu: 'ОАЭ', nameFa: 'امارات', continentCode: 'AS', capital: 'Abu Dhabi', region: 'Dubai', regionCode: 'DU', city: 'Dubai', postal: '00000', latitude: 25.2048, longitude: 55.2708, timezone: 'Asia/Dubai', timezoneAbbr: '+04', utcOffsetMinutes: 240, callingCode: '971', borders: 'OM,SA', tld: '.ae', currency: 'AED', asn: 5384, org: 'Emirates Telecommunications Group Company (etisalat Group) PJSC', isp: 'Etisalat', domain: 'etisalat.ae', colo: 'DXB' }),
  place({ code: 'SE', iso3: 'SWE', name: 'Sweden', nameRu: 'Швеция', nameFa: 'سوئد', continentCode: 'EU', inEu: true, capital: 'Stockholm', region: 'Stockholm County', regionCode: 'AB', city: 'Stockholm', postal: '111 20', latitude: 59.3293, longitude: 18.0686, timezone: 'Europe/Stockholm', timezoneAbbr: 'CET', utcOffsetMinutes: 60, callingCode: '46', borders: 'FI,NO', tld: '.se', currency: 'SEK', asn: 39351, org: '31173 Services AB', isp: '31173 Services AB', domain: '31173.se', colo: 'ARN' }),
  place({ code: 'GB', iso3: 'GBR', name: 'United Kingdom', nameRu: 'Великобритания', nameFa: 'بریتانیا', continentCode: 'EU', capital: 'London', region: 'England', regionCode: 'ENG', city: 'London', postal: 'EC1A', latitude: 51.5074, longitude: -0.1278, timezone: 'Europe/London', timezoneAbbr: 'GMT', utcOffsetMinutes: 0, callingCode: '44', borders: 'IE', tld: '.uk', currency: 'GBP', asn: 20473, org: 'The Constant Company, LLC', isp: 'Vultr Holdings, LLC', domain: 'vultr.com', colo: 'LHR' }),
  place({ code: 'CA', iso3: 'CAN', name: 'Canada', nameRu: 'Канада', nameFa: 'کانادا', continentCode: 'NA', capital: 'Ottawa', region: 'Quebec', regionCode: 'QC', city: 'Montreal', postal: 'H2Y', latitude: 45.5019, longitude: -73.5674, timezone: 'America/Toronto', timezoneAbbr: 'EST', utcOffsetMinutes: -300, callingCode: '1', borders: 'US', tld: '.ca', currency: 'CAD', asn: 577, org: 'Bell Canada', isp: 'Bell Canada', domain: 'bell.ca', colo: 'YUL' }),
  place({ code: 'FR', iso3: 'FRA', name: 'France', nameRu: 'Франция', nameFa: 'فرانسه', continentCode: 'EU', inEu: true, capital: 'Paris', region: 'Île-de-France', regionCode: 'IDF', city: 'Paris', postal: '75001', latitude: 48.8566, longitude: 2.3522, timezone: 'Europe/Paris', timezoneAbbr: 'CET', utcOffsetMinutes: 60, callingCode: '33', borders: 'AD,BE,CH,DE,ES,IT,LU,MC', tld: '.fr', currency: 'EUR', asn: 12876, org: 'SCALEWAY S.A.S.', isp: 'Scaleway', domain: 'scaleway.com', colo: 'CDG' }),
  place({ code: 'SG', iso3: 'SGP', name: 'Singapore', nameRu: 'Сингапур', nameFa: 'سنگاپور', continentCode: 'AS', capital: 'Singapore', region: 'Central Singapore', regionCode: '01', city: 'Singapore', postal: '018956', latitude: 1.2897, longitude: 103.8501, timezone: 'Asia/Singapore', timezoneAbbr: '+08', utcOffsetMinutes: 480, callingCode: '65', borders: '', tld: '.sg', currency: 'SGD', asn: 14061, org: 'DigitalOcean, LLC', isp: 'DigitalOcean, LLC', domain: 'digitalocean.com', colo: 'SIN' }),
  place({ code: 'CH', iso3: 'CHE', name: 'Switzerland', nameRu: 'Швейцария', nameFa: 'سوئیس', continentCode: 'EU', capital: 'Bern', region: 'Zurich', regionCode: 'ZH', city: 'Zurich', postal: '8001', latitude: 47.3769, longitude: 8.5417, timezone: 'Europe/Zurich', timezoneAbbr: 'CET', utcOffsetMinutes: 60, callingCode: '41', borders: 'AT,DE,FR,IT,LI', tld: '.ch', currency: 'CHF', asn: 51852, org: 'Private Layer INC', isp: 'Private Layer INC', domain: 'privatelayer.com', colo: 'ZRH' }),
  place({ code: 'PL', iso3: 'POL', name: 'Poland', nameRu: 'Польша', nameFa: 'لهستان', continentCode: 'EU', inEu: true, capital: 'Warsaw', region: 'Mazovia', regionCode: '14', city: 'Warsaw', postal: '00-001', latitude: 52.2297, longitude: 21.0122, timezone: 'Europe/Warsaw', timezoneAbbr: 'CET', utcOffsetMinutes: 60, callingCode: '48', borders: 'BY,CZ,DE,LT,RU,SK,UA', tld: '.pl', currency: 'PLN', asn: 5617, org: 'Orange Polska Spolka Akcyjna', isp: 'Orange Polska', domain: 'orange.pl', colo: 'WAW' }),
  place({ code: 'HK', iso3: 'HKG', name: 'Hong Kong', nameRu: 'Гонконг', nameFa: 'هنگ کنگ', continentCode: 'AS', capital: 'City of Victoria', region: 'Central and Western', regionCode: 'HCW', city: 'Hong Kong', postal: '999077', latitude: 22.3193, longitude: 114.1694, timezone: 'Asia/Hong_Kong', timezoneAbbr: 'HKT', utcOffsetMinutes: 480, callingCode: '852', borders: 'CN', tld: '.hk', currency: 'HKD', asn: 4760, org: 'HKT Limited', isp: 'HKT Limited', domain: 'hkt.com', colo: 'HKG' }),
  place({ code: 'KR', iso3: 'KOR', name: 'South Korea', nameRu: 'Южная Корея', nameFa: 'کره جنوبی', continentCode: 'AS', capital: 'Seoul', region: 'Seoul', regionCode: '11', city: 'Seoul', postal: '04524', latitude: 37.5665, longitude: 126.978, timezone: 'Asia/Seoul', timezoneAbbr: 'KST', utcOffsetMinutes: 540, callingCode: '82', borders: 'KP', tld: '.kr', currency: 'KRW', asn: 4766, org: 'Korea Telecom', isp: 'KT Corporation', domain: 'kt.com', colo: 'ICN' }),
  place({ code: 'AU', iso3: 'AUS', name: 'Australia', nameRu: 'Австралия', nameFa: 'استرالیا', continentCode: 'OC', capital: 'Canberra', region: 'New South Wales', regionCode: 'NSW', city: 'Sydney', postal: '2000', latitude: -33.8688, longitude: 151.2093, timezone: 'Australia/Sydney', timezoneAbbr: 'AEST', utcOffsetMinutes: 600, callingCode: '61', borders: '', tld: '.au', currency: 'AUD', asn: 1221, org: 'Telstra Limited', isp: 'Telstra Limited', domain: 'telstra.com', colo: 'SYD' }),
  place({ code: 'BR', iso3: 'BRA', name: 'Brazil', nameRu: 'Бразилия', nameFa: 'برزیل', continentCode: 'SA', capital: 'Brasília', region: 'São Paulo', regionCode: 'SP', city: 'São Paulo', postal: '01000-000', latitude: -23.5505, longitude: -46.6333, timezone: 'America/Sao_Paulo', timezoneAbbr: '-03', utcOffsetMinutes: -180, callingCode: '55', borders: 'AR,BO,CO,GF,GY,PE,PY,SR,UY,VE', tld: '.br', currency: 'BRL', asn: 28573, org: 'Claro NXT Telecomunicacoes Ltda', isp: 'Claro S.A.', domain: 'claro.com.br', colo: 'GRU' }),
  place({ code: 'IN', iso3: 'IND', name: 'India', nameRu: 'Индия', nameFa: 'هند', continentCode: 'AS', capital: 'New Delhi', region: 'Maharashtra', regionCode: 'MH', city: 'Mumbai', postal: '400001', latitude: 19.076, longitude: 72.8777, timezone: 'Asia/Kolkata', timezoneAbbr: 'IST', utcOffsetMinutes: 330, callingCode: '91', borders: 'BD,BT,CN,MM,NP,PK', tld: '.in', currency: 'INR', asn: 9498, org: 'Bharti Airtel Ltd.', isp: 'Bharti Airtel', domain: 'airtel.in', colo: 'BOM' }),
];

/**
 * Where the user sits: what the stand-ins answer to a caller from 127.0.0.1 (no VPN in between).
 * A censored network, as the product's users have.
 */
export const HOME: Place = place({ code: 'IR', iso3: 'IRN', name: 'Iran', nameRu: 'Иран', nameFa: 'ایران', continentCode: 'AS', capital: 'Tehran', region: 'Tehran', regionCode: '23', city: 'Tehran', postal: '1313', latitude: 35.6892, longitude: 51.389, timezone: 'Asia/Tehran', timezoneAbbr: '+0330', utcOffsetMinutes: 210, callingCode: '98', borders: 'AF,AM,AZ,IQ,PK,TR,TM', tld: '.ir', currency: 'IRR', asn: 58224, org: 'Iran Telecommunication Company PJS', isp: 'Iran Telecommunication Company PJS', domain: 'tci.ir', colo: 'FRA' });

/** The flag emoji of an ISO 3166-1 alpha-2 code (regional indicator symbols). */
export function flagEmoji(code: string): string {
  return String.fromCodePoint(...[...code.toUpperCase()].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

/** "U+1F1EB U+1F1EE", as ipwho.is spells a flag. */
export function flagUnicode(code: string): string {
  return [...code.toUpperCase()].map((c) => `U+${(0x1f1e6 + c.charCodeAt(0) - 65).toString(16).toUpperCase()}`).join(' ');
}

/** "+0200" (ipapi.co) or "+02:00" (ipwho.is). */
export function formatOffset(minutes: number, withColon: boolean): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return withColon ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
}
