// Shared by the SA record and service tests: a fat tree the real SM brought up, its SA index,
// and requests built from typed records.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <span>
#include <vector>

#include "tests/sm/harness.h"
#include "mad/sa_mad.h"
#include "sm/sa/handler.h"
#include "sm/sa/index.h"
#include "sm/sa/queries.h"

namespace satest {

inline constexpr uint64_t kPrefix = 0xFE80000000000000ULL;

struct Fixture {
  smtest::Run run;
  std::shared_ptr<const sm::sa::Index> index;
  explicit Fixture(sim::FabricSpec spec = *sim::make_fat_tree(2, 8)) : run(std::move(spec)) {
    REQUIRE(run.until_idle());
    REQUIRE(run.sm->subnet_up());
    rebuild();
  }
  void rebuild() {
    index = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(run.sm->subnet(), 18));
  }
};

inline mad::MadBytes request(uint8_t method, uint16_t attr, uint64_t mask, std::span<const uint8_t> rec = {},
                             uint64_t tid = 0x1234) {
  mad::SaMad m;
  m.header.method = method;
  m.header.attr_id = attr;
  m.header.tid = tid;
  m.comp_mask = mask;
  std::copy(rec.begin(), rec.begin() + static_cast<ptrdiff_t>(std::min(rec.size(), m.data.size())), m.data.begin());
  return mad::encode_sa_mad(m);
}

template <class R>
std::vector<uint8_t> bytes(const R& r) {
  std::vector<uint8_t> b(R::kSize);
  r.encode(b);
  return b;
}

inline sm::sa::Answer ask(const sm::sa::Index* ix, std::span<sm::sa::Handler* const> hs, const mad::MadBytes& req,
                          mad::Lid from = mad::Lid(1)) {
  mad::MadAddress a;
  a.lid = from;
  a.qpn = 1;
  return sm::sa::answer_query(ix, hs, req, a, kPrefix);
}

// The records of a GetTable answer (or the one record of a Get), decoded.
template <class R>
std::vector<R> records(const sm::sa::Answer& a) {
  std::vector<R> out;
  if (a.response.header.status != 0) return out;
  if (!a.rmpp) {
    out.push_back(*R::decode(std::span(a.response.data).first(R::kSize)));
    return out;
  }
  const size_t stride = size_t{a.response.attr_offset} * 8;
  for (size_t off = 0; off + R::kSize <= a.payload.size(); off += stride)
    out.push_back(*R::decode(std::span(a.payload).subspan(off, R::kSize)));
  return out;
}

}  // namespace satest
