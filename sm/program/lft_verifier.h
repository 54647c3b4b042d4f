// A light sweep's share of LFT verification: reads a slice of the switches' LFT blocks and
// rewrites each one unlike what routing wants (someone else wrote it: a host that is not an SM,
// another SM), naming it, so tables changed behind the SM's back do not stay changed. The SM
// moves the slice on every light sweep, so each block is read once per full pass.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "routing/tables.h"
#include "sm/memory.h"
#include "sm/program/programmer.h"
#include "sm/program/sender.h"
#include "sm/smp_client.h"

namespace sm {

class LftVerifier {
 public:
  struct Block {
    NodeId sw;
    uint32_t block;
  };
  struct Result {
    uint64_t read = 0, rewritten = 0, failed = 0;
    Tampered tampered;
  };

  LftVerifier(SmpClient& client, LftMemory& memory) : client_(client), memory_(memory), sender_(client.transactions()) {}
  // The topology and tables are those the blocks were written for; kept until `done` runs.
  void start(std::shared_ptr<const Topology> topo, std::shared_ptr<const routing::RoutingTables> tables,
             std::vector<Block> blocks, std::function<void()> done);
  const Result& result() const { return result_; }

 private:
  void read(const Block& b);
  void rewrite(const Block& b, const std::array<uint8_t, 64>& want);
  void remember(const Block& b, uint64_t hash);

  SmpClient& client_;
  LftMemory& memory_;
  Sender sender_;
  std::shared_ptr<const Topology> topo_;
  std::shared_ptr<const routing::RoutingTables> tables_;
  std::vector<Block> blocks_;
  Result result_;
};

// One light sweep's share: 1/`passes` of every switch's blocks (at most `max`), from position
// `cursor` of the sequence of them all (switch by switch, in topology order), wrapping around;
// `cursor` moves past them.
std::vector<LftVerifier::Block> next_blocks(const Topology& topo, const routing::RoutingTables& tables,
                                            size_t passes, size_t max, size_t& cursor);

}  // namespace sm
