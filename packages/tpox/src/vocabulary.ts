/** Value domains of the TPoX-like documents (after TPoX's custacc, FIXML order and security samples). */

export const FIRST_NAMES = [
  'Adam', 'Alice', 'Amira', 'Anna', 'Ben', 'Carla', 'Chen', 'Daniel', 'Diego', 'Elena', 'Emma', 'Farid', 'Grace',
  'Hana', 'Ivan', 'Jakob', 'Julia', 'Kenji', 'Lars', 'Laura', 'Lena', 'Luca', 'Maria', 'Mateo', 'Mei', 'Nina',
  'Noah', 'Olga', 'Omar', 'Paul', 'Priya', 'Rafael', 'Sara', 'Sofia', 'Tom', 'Vera', 'Wei', 'Yusuf', 'Zoe',
] as const;

export const LAST_NAMES = [
  'Andersen', 'Becker', 'Brown', 'Costa', 'Dubois', 'Fischer', 'Garcia', 'Hansen', 'Ivanova', 'Jensen', 'Kim',
  'Kowalski', 'Larsen', 'Lopez', 'Martin', 'Meyer', 'Müller', 'Nakamura', 'Novak', "O'Brien", 'Petrov', 'Rossi',
  'Schmidt', 'Silva', 'Smith', 'Tanaka', 'Wagner', 'Wang', 'Weber', 'Yilmaz',
] as const;

export const COUNTRIES = [
  'Argentina', 'Australia', 'Austria', 'Brazil', 'Canada', 'China', 'Denmark', 'France', 'Germany', 'India',
  'Italy', 'Japan', 'Mexico', 'Netherlands', 'Norway', 'Poland', 'Spain', 'Sweden', 'Switzerland', 'Turkey',
  'United Kingdom', 'United States',
] as const;

export const CURRENCIES = ['CHF', 'EUR', 'GBP', 'JPY', 'USD'] as const;

export const ACCOUNT_CATEGORIES = ['Checking', 'Savings', 'Brokerage', 'Retirement', 'Trust'] as const;

export const TITLE_WORDS = ['Personal', 'Joint', 'Family', 'Private', 'Premium', 'Growth', 'Income', 'Reserve'] as const;

export const SECTORS: readonly (readonly [string, readonly string[]])[] = [
  ['Energy', ['Oil & Gas', 'Renewables', 'Coal']],
  ['Financials', ['Banks', 'Insurance', 'Asset Management']],
  ['Health Care', ['Pharmaceuticals', 'Biotechnology', 'Medical Devices']],
  ['Industrials', ['Aerospace', 'Machinery', 'Transportation']],
  ['Technology', ['Software', 'Semiconductors', 'Hardware']],
  ['Consumer', ['Retail', 'Food & Beverage', 'Automobiles']],
  ['Utilities', ['Electric', 'Water']],
];

export const FUND_FAMILIES = ['Atlas Funds', 'Harbor & Vale', 'Northstar', 'Summit Capital'] as const;

export const COMPANY_WORDS = [
  'Acme', 'Apex', 'Blue', 'Cedar', 'Delta', 'Eagle', 'Falcon', 'Global', 'Granite', 'Horizon', 'Iron', 'Lunar',
  'Maple', 'Nova', 'Orion', 'Pacific', 'Pioneer', 'Quantum', 'River', 'Silver', 'Solar', 'Stellar', 'Titan',
  'Union', 'Vertex', 'Zenith',
] as const;

export const COMPANY_SUFFIXES = ['Inc', 'Corp', 'Group', 'Holdings', 'Ltd', 'AG', '& Co'] as const;
