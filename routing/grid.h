// The coordinates of a switch graph that is a Cartesian product of paths (a mesh), rings (a
// torus) and complete graphs (HyperX), recovered from the cabling alone: what dimension-order
// routing (dor) needs. No names, port numbers or GUIDs are trusted to say where a switch sits.
//
// The dimensions come from the square relation of product factorisation (Imrich and Klavzar,
// "Product Graphs", 2000): two cables at one switch are in the same dimension when no chordless
// 4-cycle holds both, and the opposite sides of a chordless 4-cycle are in the same dimension.
// A ring of 4 is a square itself, so it comes out as two dimensions of 2 (C4 = K2 x K2), which
// routes the same. The result is checked: every switch a distinct coordinate, every cable one
// step in one dimension, as many cables as the product has; anything else is an error.
#pragma once

#include <cstdint>
#include <vector>

#include "mad/error.h"
#include "routing/fabric_view.h"

namespace routing {

enum class DimKind : uint8_t {
  path,    // 0 - 1 - ... - (size-1): a mesh dimension (size 2 included)
  ring,    // the same, closed: size-1 - 0 is a cable (a torus dimension, size >= 5)
  clique,  // every pair cabled (HyperX; a ring of 3 too)
};

struct GridDim {
  DimKind kind;
  uint32_t size;
};

class Grid {
 public:
  const std::vector<GridDim>& dims() const { return dims_; }
  uint32_t coord(SwIdx s, size_t d) const { return coord_[s * dims_.size() + d]; }
  // The switch at `coords` (one value per dimension).
  SwIdx at(const std::vector<uint32_t>& coords) const;
  // "8 x 8 torus", "6 x 6 mesh", "4 x 4 HyperX", "5 ring x 2 x 2".
  std::string describe() const;

  static mad::Result<Grid> recover(const FabricView& fv);

 private:
  std::vector<GridDim> dims_;
  std::vector<uint32_t> coord_;  // switch-major
  std::vector<SwIdx> switch_at_;  // by mixed-radix coordinate, dimension 0 most significant
};

}  // namespace routing
