/** Point of sale: one sale (or refund) at a till, of one to three product lines. */

import { floorToSecond, formatNaive } from '../naive-time';
import { PRODUCTS, TILLS } from '../products';
import type { ApiPosItem } from '../records';
import { round2, type SimulationContext } from './context';

type Product = (typeof PRODUCTS)[number];

/** One line of a sale; `sign` -1 on a refund. */
function posItem(ctx: SimulationContext, product: Product, isRefund: boolean): ApiPosItem {
  const rng = ctx.rng;
  const sign = isRefund ? -1 : 1;
  const taxRate = ctx.store.profile.locale.taxRate;
  const quantity =
    product.priceIncTax > 100
      ? 1
      : rng.weighted([
          [1, 80],
          [2, 15],
          [3, 5],
        ]);
  const discount = rng.chance(0.1) ? round2(product.priceIncTax * 0.1) : 0;
  const priceInc = round2(product.priceIncTax - discount);
  const priceEx = round2(priceInc / (1 + taxRate));
  const voided = !isRefund && rng.chance(0.02);
  return {
    ItemId: ctx.ids.posItem++,
    ProductId: BigInt(product.id),
    ProductName: product.name,
    Description: product.name,
    PriceExTax: sign * priceEx,
    PriceIncTax: sign * priceInc,
    Quantity: quantity,
    Tax: sign * round2((priceInc - priceEx) * quantity),
    Discount: discount,
    CategoryId: BigInt(product.categoryId),
    CategoryName: product.category,
    SubCategoryId: BigInt(product.subCategoryId),
    SubCategoryName: product.subCategory,
    IsRefunded: isRefund,
    IsVoided: voided,
  };
}

export function posSale(ctx: SimulationContext, atMs: number): void {
  const rng = ctx.rng;
  const isRefund = rng.chance(0.03);
  const items: ApiPosItem[] = [];
  const lines = rng.weighted([
    [1, 70],
    [2, 22],
    [3, 8],
  ]);
  let totalInc = 0;
  let totalEx = 0;
  for (let i = 0; i < lines; i++) {
    const item = posItem(ctx, rng.pick(PRODUCTS), isRefund);
    items.push(item);
    if (!item.IsVoided) {
      totalInc += item.PriceIncTax * item.Quantity;
      totalEx += item.PriceExTax * item.Quantity;
    }
  }
  const member = rng.chance(0.7) ? ctx.pickMember('Active') : undefined;
  const key = floorToSecond(ctx.store.ambiguous(ctx.recordTime(atMs)));
  ctx.store.addPosTransaction(
    {
      key,
      api: {
        PosTransactionId: ctx.ids.pos++,
        TransactionDate: formatNaive(key),
        TransactionType: isRefund ? 'Refund' : 'Sale',
        TotalExTax: round2(totalEx),
        TotalIncTax: round2(totalInc),
        Till: rng.pick(TILLS),
        Items: items,
        ...(member ? { MemberNumber: member.api.Number } : {}),
      },
    },
    atMs,
  );
}
