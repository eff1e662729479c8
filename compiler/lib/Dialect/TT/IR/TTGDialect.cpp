//===- TTGDialect.cpp - ttg.barrier ---------------------------------------===//

#include "triton-mtia/Dialect/TT/IR/TTGDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::triton_mtia::ttg;

#include "triton-mtia/Dialect/TT/IR/TTGDialect.cpp.inc"

void TTGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "triton-mtia/Dialect/TT/IR/TTGOps.cpp.inc"
      >();
}

/// `ttg.barrier all` or `ttg.barrier local|global_read`: one or more
/// `|`-separated keywords, kept verbatim in `addrSpace`.
ParseResult BarrierOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string spaces;
  do {
    StringRef word;
    if (parser.parseKeyword(&word))
      return failure();
    if (!spaces.empty())
      spaces += "|";
    spaces += word.str();
  } while (succeeded(parser.parseOptionalVerticalBar()));
  result.addAttribute("addrSpace", parser.getBuilder().getStringAttr(spaces));
  return parser.parseOptionalAttrDict(result.attributes);
}

void BarrierOp::print(OpAsmPrinter &p) {
  p << " " << getAddrSpace();
  p.printOptionalAttrDict((*this)->getAttrs(), {"addrSpace"});
}

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTGOps.cpp.inc"
