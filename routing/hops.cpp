#include "routing/hops.h"

#include <array>
#include <atomic>

#include "routing/parallel.h"
#include "routing/switch_graph.h"

namespace routing {

mad::Result<HopMatrix> HopMatrix::compute(const FabricView& fv, unsigned threads) {
  HopMatrix m;
  m.n_ = fv.switch_count();
  m.d_.assign(m.n_ * m.n_, kFar);
  const SwitchGraph g = make_switch_graph(fv);
  std::vector<HopSearch<uint8_t>> search;
  const unsigned workers = worker_count(m.n_, threads);
  for (unsigned w = 0; w < workers; ++w) search.emplace_back(g);
  std::atomic<bool> overflow{false};
  parallel_for(m.n_, threads, [&](size_t s, unsigned w) {
    const SwIdx src = static_cast<SwIdx>(s);
    const uint8_t far = search[w].run({&src, 1}, {m.d_.data() + s * m.n_, m.n_});
    if (far == kFar) overflow = true;
  });
  if (overflow)
    return mad::fail(mad::Errc::unsupported, "switches more than 254 hops apart: not routable");
  return m;
}

void minhop_candidates(const FabricView& fv, const HopMatrix& hops, SwIdx s, CandidateLists& out) {
  const size_t n = hops.size();
  out.reset(n);
  const auto arcs = fv.arcs(s);
  std::vector<const uint8_t*> rows;
  rows.reserve(arcs.size());
  for (const Arc& a : arcs) rows.push_back(hops.row(a.to).data());
  const uint8_t* mine = hops.row(s).data();
  // Branch-free selection into a buffer: which neighbours qualify changes from one destination
  // to the next, and mispredicted branches made this loop a quarter of minhop's time.
  std::array<uint8_t, 256> buf;
  for (SwIdx t = 0; t < n; ++t) {
    const size_t start = out.open();
    const uint8_t h = mine[t];
    if (h != 0 && h != HopMatrix::kFar) {
      const uint8_t want = static_cast<uint8_t>(h - 1);
      size_t k = 0, m = 0;
      for (; k < arcs.size(); ++k) {
        buf[m] = arcs[k].port;
        m += rows[k][t] == want ? 1 : 0;
      }
      out.push({buf.data(), m});
    }
    out.close(t, start);
  }
}

}  // namespace routing
