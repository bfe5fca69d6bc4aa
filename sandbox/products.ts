/**
 * The shop of the synthetic clubs: its products (ids, prices, categories as the POS endpoint
 * reports them) and its tills. Data only.
 */

export interface Product {
  readonly id: number;
  readonly name: string;
  readonly priceIncTax: number;
  readonly categoryId: number;
  readonly category: string;
  readonly subCategoryId: number;
  readonly subCategory: string;
}

export const PRODUCTS: readonly Product[] = [
  {
    id: 3001,
    name: 'Water 600ml',
    priceIncTax: 3.5,
    categoryId: 30,
    category: 'Drinks',
    subCategoryId: 301,
    subCategory: 'Water',
  },
  {
    id: 3002,
    name: 'Electrolyte Drink',
    priceIncTax: 4.95,
    categoryId: 30,
    category: 'Drinks',
    subCategoryId: 302,
    subCategory: 'Sports Drinks',
  },
  {
    id: 3003,
    name: 'Protein Shake',
    priceIncTax: 8.5,
    categoryId: 30,
    category: 'Drinks',
    subCategoryId: 303,
    subCategory: 'Shakes',
  },
  {
    id: 4001,
    name: 'Protein Bar',
    priceIncTax: 4.5,
    categoryId: 40,
    category: 'Snacks',
    subCategoryId: 401,
    subCategory: 'Bars',
  },
  {
    id: 5001,
    name: 'Whey Protein 1kg',
    priceIncTax: 59.95,
    categoryId: 50,
    category: 'Supplements',
    subCategoryId: 501,
    subCategory: 'Protein',
  },
  {
    id: 5002,
    name: 'Pre-Workout 300g',
    priceIncTax: 44.95,
    categoryId: 50,
    category: 'Supplements',
    subCategoryId: 502,
    subCategory: 'Pre-Workout',
  },
  {
    id: 6001,
    name: 'Gym Towel',
    priceIncTax: 19.95,
    categoryId: 60,
    category: 'Merchandise',
    subCategoryId: 601,
    subCategory: 'Apparel',
  },
  {
    id: 6002,
    name: 'Club T-Shirt',
    priceIncTax: 29.95,
    categoryId: 60,
    category: 'Merchandise',
    subCategoryId: 601,
    subCategory: 'Apparel',
  },
  {
    id: 6003,
    name: 'Replacement Access Card',
    priceIncTax: 15,
    categoryId: 60,
    category: 'Merchandise',
    subCategoryId: 602,
    subCategory: 'Access',
  },
  {
    id: 7001,
    name: 'Personal Training 5 Pack',
    priceIncTax: 350,
    categoryId: 70,
    category: 'Services',
    subCategoryId: 701,
    subCategory: 'Personal Training',
  },
  {
    id: 7002,
    name: 'Casual Visit Pass',
    priceIncTax: 25,
    categoryId: 70,
    category: 'Services',
    subCategoryId: 702,
    subCategory: 'Casual',
  },
];

export const TILLS = ['Front Desk 1', 'Front Desk 2', 'Cafe'] as const;
