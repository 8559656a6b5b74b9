export type CategorySlug = 'modem' | 'sim' | 'accessory';

export interface SeedCategory {
  slug: CategorySlug;
  name: string;
}

export interface SeedVariant {
  sku: string; // globally unique, UPPER-KEBAB e.g. 'ESIM-TR-10GB-15D'
  name: string; // e.g. '10 GB / 15 days'
  price_minor: number; // integer minor units (1/100 Toman)
  data_gb?: number; // for data plans (omit for unlimited or non-data)
  validity_days?: number; // for plans and rentals
}

export interface SeedProduct {
  sku: string; // globally unique, UPPER-KEBAB
  name: string; // human-readable, searchable (e.g. 'Turkey eSIM')
  category: CategorySlug;
  description: string; // one or two sentences
  destinations: string[]; // ISO 3166-1 alpha-2 codes where it works; [] for accessories usable anywhere
  price_minor: number; // base price; for products with variants, the cheapest variant's price
  delivery: 'digital' | 'physical'; // eSIMs digital (QR by email); SIM cards, modems, accessories physical
  stock: number; // units on hand, 0 allowed for one or two items (out of stock)
  variants: SeedVariant[]; // data plans / rental periods; [] when the product has a single price
  default_variant?: string; // SKU of the variant a basket gets when it names none: required when there are variants (the plan for a two-week trip)
}

export const SEED_CATEGORIES: SeedCategory[] = [
  { slug: 'modem', name: 'Pocket WiFi Modems' },
  { slug: 'sim', name: 'SIM Cards & eSIMs' },
  { slug: 'accessory', name: 'Travel Accessories' },
];

export const SEED_PRODUCTS: SeedProduct[] = [
  // ---------------------------------------------------------------- SIM / eSIM
  {
    sku: 'ESIM-TR',
    name: 'Turkey eSIM',
    category: 'sim',
    description: 'Prepaid 4G/5G data eSIM on a leading Turkish network. The QR code is emailed right after purchase and activates on arrival.',
    destinations: ['TR'],
    price_minor: 55000000,
    delivery: 'digital',
    stock: 500,
    default_variant: 'ESIM-TR-10GB-15D',
    variants: [
      { sku: 'ESIM-TR-3GB-7D', name: '3 GB / 7 days', price_minor: 55000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-TR-10GB-15D', name: '10 GB / 15 days', price_minor: 120000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-TR-20GB-30D', name: '20 GB / 30 days', price_minor: 195000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'SIM-TR',
    name: 'Turkey Tourist SIM Card',
    category: 'sim',
    description: 'Physical prepaid Turkish SIM card with data and a local number, already registered for tourist use. Works in any unlocked phone.',
    destinations: ['TR'],
    price_minor: 135000000,
    delivery: 'physical',
    stock: 120,
    default_variant: 'SIM-TR-10GB-15D',
    variants: [
      { sku: 'SIM-TR-10GB-15D', name: '10 GB / 15 days', price_minor: 135000000, data_gb: 10, validity_days: 15 },
      { sku: 'SIM-TR-20GB-30D', name: '20 GB / 30 days', price_minor: 210000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-AE',
    name: 'UAE eSIM',
    category: 'sim',
    description: 'High-speed data eSIM for Dubai, Abu Dhabi and the rest of the United Arab Emirates. Delivered instantly by email as a QR code.',
    destinations: ['AE'],
    price_minor: 75000000,
    delivery: 'digital',
    stock: 400,
    default_variant: 'ESIM-AE-10GB-15D',
    variants: [
      { sku: 'ESIM-AE-3GB-7D', name: '3 GB / 7 days', price_minor: 75000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-AE-10GB-15D', name: '10 GB / 15 days', price_minor: 165000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-AE-20GB-30D', name: '20 GB / 30 days', price_minor: 270000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'SIM-AE',
    name: 'UAE Tourist SIM Card',
    category: 'sim',
    description: 'Physical UAE visitor SIM card with mobile data and local calls. Handed over before departure so you are online at the airport.',
    destinations: ['AE'],
    price_minor: 95000000,
    delivery: 'physical',
    stock: 80,
    default_variant: 'SIM-AE-15GB-14D',
    variants: [
      { sku: 'SIM-AE-5GB-7D', name: '5 GB / 7 days', price_minor: 95000000, data_gb: 5, validity_days: 7 },
      { sku: 'SIM-AE-15GB-14D', name: '15 GB / 14 days', price_minor: 185000000, data_gb: 15, validity_days: 14 },
    ],
  },
  {
    sku: 'ESIM-GE',
    name: 'Georgia eSIM',
    category: 'sim',
    description: 'Data eSIM covering Tbilisi, Batumi and the Georgian countryside. Install the QR code before you fly and it connects on landing.',
    destinations: ['GE'],
    price_minor: 42000000,
    delivery: 'digital',
    stock: 300,
    default_variant: 'ESIM-GE-10GB-15D',
    variants: [
      { sku: 'ESIM-GE-3GB-7D', name: '3 GB / 7 days', price_minor: 42000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-GE-10GB-15D', name: '10 GB / 15 days', price_minor: 89000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-GE-20GB-30D', name: '20 GB / 30 days', price_minor: 145000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'SIM-GE',
    name: 'Georgia Tourist SIM Card',
    category: 'sim',
    description: 'Physical Georgian prepaid SIM card with generous data and a local number. Ideal for travellers without an eSIM-capable phone.',
    destinations: ['GE'],
    price_minor: 98000000,
    delivery: 'physical',
    stock: 60,
    default_variant: 'SIM-GE-10GB-15D',
    variants: [
      { sku: 'SIM-GE-10GB-15D', name: '10 GB / 15 days', price_minor: 98000000, data_gb: 10, validity_days: 15 },
      { sku: 'SIM-GE-30GB-30D', name: '30 GB / 30 days', price_minor: 175000000, data_gb: 30, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-AM',
    name: 'Armenia eSIM',
    category: 'sim',
    description: 'Prepaid data eSIM for Yerevan and all of Armenia on a 4G network. QR code delivered by email within minutes.',
    destinations: ['AM'],
    price_minor: 45000000,
    delivery: 'digital',
    stock: 250,
    default_variant: 'ESIM-AM-10GB-15D',
    variants: [
      { sku: 'ESIM-AM-3GB-7D', name: '3 GB / 7 days', price_minor: 45000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-AM-10GB-15D', name: '10 GB / 15 days', price_minor: 95000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-AM-20GB-30D', name: '20 GB / 30 days', price_minor: 155000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-AZ',
    name: 'Azerbaijan eSIM',
    category: 'sim',
    description: 'Data eSIM for Baku and the rest of Azerbaijan. Activate it by scanning the QR code sent to your email.',
    destinations: ['AZ'],
    price_minor: 48000000,
    delivery: 'digital',
    stock: 200,
    default_variant: 'ESIM-AZ-10GB-15D',
    variants: [
      { sku: 'ESIM-AZ-3GB-7D', name: '3 GB / 7 days', price_minor: 48000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-AZ-10GB-15D', name: '10 GB / 15 days', price_minor: 105000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-AZ-20GB-30D', name: '20 GB / 30 days', price_minor: 168000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-EU',
    name: 'Europe Regional eSIM',
    category: 'sim',
    description: 'One eSIM for ten European countries with free roaming between them. Ideal for multi-country Schengen trips.',
    destinations: ['DE', 'FR', 'IT', 'ES', 'NL', 'AT', 'BE', 'PT', 'GR', 'SE'],
    price_minor: 85000000,
    delivery: 'digital',
    stock: 450,
    default_variant: 'ESIM-EU-10GB-15D',
    variants: [
      { sku: 'ESIM-EU-3GB-7D', name: '3 GB / 7 days', price_minor: 85000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-EU-10GB-15D', name: '10 GB / 15 days', price_minor: 180000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-EU-20GB-30D', name: '20 GB / 30 days', price_minor: 290000000, data_gb: 20, validity_days: 30 },
      { sku: 'ESIM-EU-50GB-30D', name: '50 GB / 30 days', price_minor: 520000000, data_gb: 50, validity_days: 30 },
    ],
  },
  {
    sku: 'SIM-EU',
    name: 'Europe Regional SIM Card',
    category: 'sim',
    description: 'Physical multi-country SIM card that works across ten European countries with a single data allowance. Shipped to you before departure.',
    destinations: ['DE', 'FR', 'IT', 'ES', 'NL', 'AT', 'BE', 'PT', 'GR', 'SE'],
    price_minor: 195000000,
    delivery: 'physical',
    stock: 0,
    default_variant: 'SIM-EU-10GB-15D',
    variants: [
      { sku: 'SIM-EU-10GB-15D', name: '10 GB / 15 days', price_minor: 195000000, data_gb: 10, validity_days: 15 },
      { sku: 'SIM-EU-25GB-30D', name: '25 GB / 30 days', price_minor: 340000000, data_gb: 25, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-TH',
    name: 'Thailand eSIM',
    category: 'sim',
    description: 'Fast 5G data eSIM for Bangkok, Phuket, Chiang Mai and the islands. QR code delivered by email.',
    destinations: ['TH'],
    price_minor: 52000000,
    delivery: 'digital',
    stock: 350,
    default_variant: 'ESIM-TH-10GB-15D',
    variants: [
      { sku: 'ESIM-TH-3GB-7D', name: '3 GB / 7 days', price_minor: 52000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-TH-10GB-15D', name: '10 GB / 15 days', price_minor: 110000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-TH-20GB-30D', name: '20 GB / 30 days', price_minor: 175000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-MY',
    name: 'Malaysia eSIM',
    category: 'sim',
    description: 'Prepaid data eSIM for Kuala Lumpur, Penang, Langkawi and the rest of Malaysia. Scan the emailed QR code to install.',
    destinations: ['MY'],
    price_minor: 50000000,
    delivery: 'digital',
    stock: 220,
    default_variant: 'ESIM-MY-10GB-15D',
    variants: [
      { sku: 'ESIM-MY-3GB-7D', name: '3 GB / 7 days', price_minor: 50000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-MY-10GB-15D', name: '10 GB / 15 days', price_minor: 105000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-MY-20GB-30D', name: '20 GB / 30 days', price_minor: 170000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'SIM-IR',
    name: 'Iran Tourist SIM Card',
    category: 'sim',
    description:
      "Local Iranian tourist SIM card with mobile data and a local number, registered with the visitor's passport. Collected at the agency or delivered to the hotel.",
    destinations: ['IR'],
    price_minor: 35000000,
    delivery: 'physical',
    stock: 150,
    default_variant: 'SIM-IR-15GB-15D',
    variants: [
      { sku: 'SIM-IR-5GB-7D', name: '5 GB / 7 days', price_minor: 35000000, data_gb: 5, validity_days: 7 },
      { sku: 'SIM-IR-15GB-15D', name: '15 GB / 15 days', price_minor: 65000000, data_gb: 15, validity_days: 15 },
      { sku: 'SIM-IR-30GB-30D', name: '30 GB / 30 days', price_minor: 99000000, data_gb: 30, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-CN',
    name: 'China eSIM',
    category: 'sim',
    description: 'Data eSIM for mainland China routed via Hong Kong, so common international apps and sites stay reachable. QR code delivered by email.',
    destinations: ['CN'],
    price_minor: 68000000,
    delivery: 'digital',
    stock: 180,
    default_variant: 'ESIM-CN-10GB-15D',
    variants: [
      { sku: 'ESIM-CN-3GB-7D', name: '3 GB / 7 days', price_minor: 68000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-CN-10GB-15D', name: '10 GB / 15 days', price_minor: 145000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-CN-20GB-30D', name: '20 GB / 30 days', price_minor: 235000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-RU',
    name: 'Russia eSIM',
    category: 'sim',
    description: 'Prepaid data eSIM for Moscow, Saint Petersburg and other Russian cities. Install from the emailed QR code before travel.',
    destinations: ['RU'],
    price_minor: 58000000,
    delivery: 'digital',
    stock: 160,
    default_variant: 'ESIM-RU-10GB-15D',
    variants: [
      { sku: 'ESIM-RU-3GB-7D', name: '3 GB / 7 days', price_minor: 58000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-RU-10GB-15D', name: '10 GB / 15 days', price_minor: 125000000, data_gb: 10, validity_days: 15 },
      { sku: 'ESIM-RU-20GB-30D', name: '20 GB / 30 days', price_minor: 199000000, data_gb: 20, validity_days: 30 },
    ],
  },
  {
    sku: 'ESIM-OM',
    name: 'Oman eSIM',
    category: 'sim',
    description: 'Data eSIM for Muscat, Salalah and the rest of Oman. Delivered instantly as a QR code by email.',
    destinations: ['OM'],
    price_minor: 72000000,
    delivery: 'digital',
    stock: 140,
    default_variant: 'ESIM-OM-10GB-15D',
    variants: [
      { sku: 'ESIM-OM-3GB-7D', name: '3 GB / 7 days', price_minor: 72000000, data_gb: 3, validity_days: 7 },
      { sku: 'ESIM-OM-10GB-15D', name: '10 GB / 15 days', price_minor: 158000000, data_gb: 10, validity_days: 15 },
    ],
  },

  // -------------------------------------------------------------- Pocket WiFi
  {
    sku: 'MODEM-TR',
    name: 'Turkey Pocket WiFi',
    category: 'modem',
    description:
      'Rental 4G pocket WiFi modem with unlimited data across Turkey, sharing one connection with up to 5 devices. Picked up before departure and returned after the trip.',
    destinations: ['TR'],
    price_minor: 220000000,
    delivery: 'physical',
    stock: 35,
    default_variant: 'MODEM-TR-15D',
    variants: [
      { sku: 'MODEM-TR-5D', name: '5-day rental', price_minor: 220000000, validity_days: 5 },
      { sku: 'MODEM-TR-10D', name: '10-day rental', price_minor: 350000000, validity_days: 10 },
      { sku: 'MODEM-TR-15D', name: '15-day rental', price_minor: 460000000, validity_days: 15 },
      { sku: 'MODEM-TR-30D', name: '30-day rental', price_minor: 790000000, validity_days: 30 },
    ],
  },
  {
    sku: 'MODEM-EU',
    name: 'Europe Pocket WiFi',
    category: 'modem',
    description: 'Rental pocket WiFi modem with unlimited 4G data in ten European countries. Connects up to 5 phones, tablets or laptops at once.',
    destinations: ['DE', 'FR', 'IT', 'ES', 'NL', 'AT', 'BE', 'PT', 'GR', 'SE'],
    price_minor: 280000000,
    delivery: 'physical',
    stock: 25,
    default_variant: 'MODEM-EU-15D',
    variants: [
      { sku: 'MODEM-EU-5D', name: '5-day rental', price_minor: 280000000, validity_days: 5 },
      { sku: 'MODEM-EU-10D', name: '10-day rental', price_minor: 450000000, validity_days: 10 },
      { sku: 'MODEM-EU-15D', name: '15-day rental', price_minor: 590000000, validity_days: 15 },
      { sku: 'MODEM-EU-30D', name: '30-day rental', price_minor: 980000000, validity_days: 30 },
    ],
  },
  {
    sku: 'MODEM-GLOBAL',
    name: 'Global Multi-Country Pocket WiFi',
    category: 'modem',
    description:
      "Rental pocket WiFi modem that switches networks automatically across the region's most visited countries. One device for multi-stop itineraries.",
    destinations: ['TR', 'AE', 'GE', 'AM', 'AZ', 'TH', 'MY', 'CN', 'RU', 'OM', 'DE', 'FR', 'IT', 'ES', 'NL'],
    price_minor: 350000000,
    delivery: 'physical',
    stock: 20,
    default_variant: 'MODEM-GLOBAL-15D',
    variants: [
      { sku: 'MODEM-GLOBAL-5D', name: '5-day rental', price_minor: 350000000, data_gb: 10, validity_days: 5 },
      { sku: 'MODEM-GLOBAL-10D', name: '10-day rental', price_minor: 560000000, data_gb: 20, validity_days: 10 },
      { sku: 'MODEM-GLOBAL-15D', name: '15-day rental', price_minor: 740000000, data_gb: 30, validity_days: 15 },
      { sku: 'MODEM-GLOBAL-30D', name: '30-day rental', price_minor: 1250000000, data_gb: 60, validity_days: 30 },
    ],
  },
  {
    sku: 'MODEM-AE',
    name: 'UAE Pocket WiFi',
    category: 'modem',
    description: 'Rental 4G/5G pocket WiFi modem with unlimited data throughout the United Arab Emirates. Keeps the whole family online from one device.',
    destinations: ['AE'],
    price_minor: 260000000,
    delivery: 'physical',
    stock: 30,
    default_variant: 'MODEM-AE-15D',
    variants: [
      { sku: 'MODEM-AE-5D', name: '5-day rental', price_minor: 260000000, validity_days: 5 },
      { sku: 'MODEM-AE-10D', name: '10-day rental', price_minor: 410000000, validity_days: 10 },
      { sku: 'MODEM-AE-15D', name: '15-day rental', price_minor: 540000000, validity_days: 15 },
      { sku: 'MODEM-AE-30D', name: '30-day rental', price_minor: 920000000, validity_days: 30 },
    ],
  },

  // -------------------------------------------------------------- Accessories
  {
    sku: 'ACC-ADAPTER-UNIVERSAL',
    name: 'Universal Travel Adapter',
    category: 'accessory',
    description: 'All-in-one plug adapter for EU, UK, US and AU sockets in over 150 countries, with two USB-A ports and one USB-C port.',
    destinations: [],
    price_minor: 65000000,
    delivery: 'physical',
    stock: 90,
    variants: [],
  },
  {
    sku: 'ACC-POWERBANK-10000',
    name: 'Power Bank 10000 mAh',
    category: 'accessory',
    description: 'Slim 10000 mAh power bank with USB-C PD fast charging, enough for about two full phone charges. Cabin-bag approved.',
    destinations: [],
    price_minor: 89000000,
    delivery: 'physical',
    stock: 70,
    variants: [],
  },
  {
    sku: 'ACC-POWERBANK-20000',
    name: 'Power Bank 20000 mAh',
    category: 'accessory',
    description: 'High-capacity 20000 mAh power bank with 22.5 W fast charging and three outputs for phones, tablets and pocket WiFi modems.',
    destinations: [],
    price_minor: 135000000,
    delivery: 'physical',
    stock: 45,
    variants: [],
  },
  {
    sku: 'ACC-SIM-KIT',
    name: 'SIM Ejector & Card Holder Kit',
    category: 'accessory',
    description: 'Pocket-sized case holding nano, micro and standard SIM cards plus an ejector pin, so your home SIM stays safe while you travel.',
    destinations: [],
    price_minor: 12000000,
    delivery: 'physical',
    stock: 200,
    variants: [],
  },
  {
    sku: 'ACC-CHARGER-USBC',
    name: 'USB-C Fast Charger 30 W',
    category: 'accessory',
    description: 'Compact 30 W GaN USB-C wall charger with foldable pins that fast-charges phones and tablets. Works on 100-240 V worldwide.',
    destinations: [],
    price_minor: 78000000,
    delivery: 'physical',
    stock: 60,
    variants: [],
  },
  {
    sku: 'ACC-LUGGAGE-TRACKER',
    name: 'Luggage Tracker Tag',
    category: 'accessory',
    description: 'Bluetooth tracker tag for suitcases and bags that shows their location on your phone. Replaceable battery lasts about a year.',
    destinations: [],
    price_minor: 145000000,
    delivery: 'physical',
    stock: 0,
    variants: [],
  },
];
