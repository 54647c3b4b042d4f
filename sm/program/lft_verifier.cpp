#include "sm/program/lft_verifier.h"

#include <algorithm>

#include "sm/program/lft_plan.h"

namespace sm {

std::vector<LftVerifier::Block> next_blocks(const Topology& topo, const routing::RoutingTables& tables,
                                            size_t passes, size_t max, size_t& cursor) {
  const auto switches = topo.switches();
  const size_t per_switch = static_cast<size_t>(tables.max_lid().value()) / 64 + 1;
  const size_t total = switches.size() * per_switch;
  std::vector<LftVerifier::Block> out;
  if (total == 0 || passes == 0) return out;
  const size_t count = std::min({(total + passes - 1) / passes, max, total});
  out.reserve(count);
  cursor %= total;
  for (size_t i = 0; i < count; ++i, cursor = (cursor + 1) % total)
    out.push_back({switches[cursor / per_switch], static_cast<uint32_t>(cursor % per_switch)});
  return out;
}

void LftVerifier::start(std::shared_ptr<const Topology> topo, std::shared_ptr<const routing::RoutingTables> tables,
                        std::vector<Block> blocks, std::function<void()> done) {
  topo_ = std::move(topo);
  tables_ = std::move(tables);
  blocks_ = std::move(blocks);
  result_ = {};
  sender_.run(blocks_.size(), [this](size_t i) { read(blocks_[i]); }, std::move(done));
}

void LftVerifier::remember(const Block& b, uint64_t hash) {
  SwitchMemory* m = memory_.edit(topo_->node(b.sw).guid);
  if (m && b.block < m->block_hash.size()) m->block_hash[b.block] = hash;
}

void LftVerifier::read(const Block& b) {
  sender_.begin();
  client_.get(topo_->node(b.sw).path, mad::attr::linear_fwd_table, b.block, [this, b](mad::Result<mad::Smp> r) {
    auto t = r ? mad::decode_attr<mad::LinearForwardingTable>(*r)
               : mad::Result<mad::LinearForwardingTable>(std::unexpected(r.error()));
    if (t) {
      ++result_.read;
      const auto want = wanted_block(*tables_, b.sw, b.block);
      if (entries_of(*t) != want) {
        result_.tampered[topo_->node(b.sw).guid].push_back(b.block);
        rewrite(b, want);
      }
    } else {
      ++result_.failed;  // lost, or the switch is gone: the light sweep's SwitchInfo tells
    }
    sender_.end();
  });
}

void LftVerifier::rewrite(const Block& b, const std::array<uint8_t, 64>& want) {
  sender_.begin();
  client_.set(topo_->node(b.sw).path, mad::attr::linear_fwd_table, b.block, mad::encode_attr(lft_attr(want)),
              [this, b, hash = lft_block_hash(want)](mad::Result<mad::Smp> r) {
                if (r) ++result_.rewritten;
                else ++result_.failed;
                remember(b, r ? hash : 0);  // unknown if the Set failed: the next sweep writes it
                sender_.end();
              });
}

}  // namespace sm
