#include "routing/ftree_slots.h"

#include <algorithm>
#include <tuple>

#include "routing/lowest_root_sets.h"

namespace routing {

namespace {

bool at_or_below(const Levels& lv, SwIdx s, uint32_t h) {
  return lv.level[s] != kNoLevel && lv.level[s] <= h;
}

}  // namespace

TreeSlots::TreeSlots(const FabricView& fv, const Levels& lv, std::span<const Dest> order)
    : stride_(lv.top + 1), home_(fv.switch_count(), 0) {
  const size_t n = fv.switch_count();
  // The pieces below each level: piece[h][s] = root of s's connected component among the
  // switches of levels 0..h (kNoSw above h). sub[h][r]: the rank of level-h piece r within
  // its level-(h+1) piece, by root.
  std::vector<std::vector<SwIdx>> piece(stride_, std::vector<SwIdx>(n, kNoSw));
  LowestRootSets below(n);
  for (uint32_t h = 0; h <= lv.top; ++h) {
    for (SwIdx s = 0; s < n; ++s)
      if (lv.level[s] == h)
        for (const Arc& a : fv.arcs(s))
          if (at_or_below(lv, a.to, h)) below.join(s, a.to);
    for (SwIdx s = 0; s < n; ++s)
      if (at_or_below(lv, s, h)) piece[h][s] = below.find(s);
  }
  std::vector<std::vector<uint32_t>> sub(stride_, std::vector<uint32_t>(n, 0));
  for (uint32_t h = 0; h <= lv.top; ++h) {
    std::vector<std::pair<SwIdx, SwIdx>> in;  // (level-(h+1) piece, level-h piece)
    std::vector<uint32_t> rank_of(n, 0);
    uint32_t count = 0;
    for (SwIdx r = 0; r < n; ++r) {
      if (piece[h][r] != r) continue;
      rank_of[r] = count++;  // roots come in index order
      in.emplace_back(h < lv.top ? piece[h + 1][r] : 0, r);
    }
    std::sort(in.begin(), in.end());
    for (size_t k = 0, rank = 0; k < in.size(); ++k) {
      rank = k > 0 && in[k].first == in[k - 1].first ? rank + 1 : 0;
      sub[h][in[k].second] = static_cast<uint32_t>(rank);
    }
    for (SwIdx s = 0; s < n; ++s)
      if (lv.level[s] == h) home_[s] = rank_of[piece[h][s]];
  }

  digits_.assign(order.size() * stride_, 0);
  for (size_t i = 0, run = 0; i < order.size(); ++i) {
    const SwIdx sw = order[i].sw;
    const uint32_t own = lv.level[sw];
    if (own == kNoLevel) continue;
    // A switch's CA LIDs are consecutive in the order; its own LID (after every CA) is a run
    // of its own.
    run = i > 0 && order[i - 1].sw == sw ? run + 1 : 0;
    digits_[i * stride_ + own] = static_cast<uint32_t>(run);
    for (uint32_t h = own + 1; h <= lv.top; ++h)
      digits_[i * stride_ + h] = sub[h - 1][piece[h - 1][sw]];
  }

  // Classes: switches of one level that share a parent, transitively.
  LowestRootSets share(n);
  for (SwIdx x = 0; x < n; ++x) {
    SwIdx first = kNoSw;
    for (const Arc& a : fv.arcs(x)) {
      if (lv.level[x] == kNoLevel || lv.level[a.to] + 1 != lv.level[x]) continue;
      if (first == kNoSw) first = a.to;
      share.join(first, a.to);
    }
  }
  cls_.assign(n, 0);
  std::vector<uint32_t> index(n, UINT32_MAX);
  uint32_t classes = 0;
  for (SwIdx s = 0; s < n; ++s) {
    const SwIdx r = share.find(s);
    if (index[r] == UINT32_MAX) index[r] = classes++;
    cls_[s] = index[r];
  }
  std::vector<std::vector<SwIdx>> ups(classes);
  for (SwIdx s = 0; s < n; ++s)
    for (const Arc& a : fv.arcs(s))
      if (lv.level[s] != kNoLevel && lv.level[a.to] == lv.level[s] + 1) ups[cls_[s]].push_back(a.to);
  class_begin_.push_back(0);
  for (auto& u : ups) {
    std::sort(u.begin(), u.end(), [&](SwIdx a, SwIdx b) {
      return std::tuple(share.find(a), a) < std::tuple(share.find(b), b);
    });
    u.erase(std::unique(u.begin(), u.end()), u.end());
    parents_.insert(parents_.end(), u.begin(), u.end());
    class_begin_.push_back(static_cast<uint32_t>(parents_.size()));
  }
}

uint32_t TreeSlots::position(SwIdx s, SwIdx parent) const {
  const auto first = parents_.begin() + class_begin_[cls_[s]];
  const auto last = parents_.begin() + class_begin_[cls_[s] + 1];
  return static_cast<uint32_t>(std::find(first, last, parent) - first);
}

}  // namespace routing
