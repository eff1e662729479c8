//===- DecomposeCat.cpp - tt.cat as a join, a transpose and a reshape -----===//
//
// See Passes.td: the concatenation order, from ops the lowering already
// places (tt.join and tt.trans are MLU copies, the reshape a view).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTDECOMPOSECAT
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::tt

using namespace mlir;
using namespace mlir::triton_mtia;

namespace {

struct TTDecomposeCat
    : public mlir::triton_mtia::tt::impl::TTDecomposeCatBase<TTDecomposeCat> {
  void runOnOperation() override {
    SmallVector<tt::CatOp> cats;
    getOperation().walk([&](tt::CatOp op) { cats.push_back(op); });
    for (tt::CatOp op : cats) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto src = cast<RankedTensorType>(op.getLhs().getType());
      int64_t rank = src.getRank();
      SmallVector<int64_t> joined(src.getShape());
      joined.push_back(2);
      Value join = tt::JoinOp::create(b, loc, src.clone(joined), op.getLhs(), op.getRhs());
      // [d0, ..., 2] -> [2, d0, ...]: a's elements, then b's.
      SmallVector<int32_t> order = {static_cast<int32_t>(rank)};
      SmallVector<int64_t> front = {2};
      for (int64_t d = 0; d < rank; ++d) {
        order.push_back(static_cast<int32_t>(d));
        front.push_back(src.getDimSize(d));
      }
      Value trans = tt::TransOp::create(b, loc, src.clone(front), join,
                                        b.getDenseI32ArrayAttr(order));
      Value cat = tt::ReshapeOp::create(b, loc, op.getType(), trans, /*allow_reorder=*/false,
                                        /*efficient_layout=*/false);
      op.replaceAllUsesWith(cat);
      op.erase();
    }
  }
};

} // namespace
