// Prints the page of tests/metrics/sample.h (SM figures and a two-port Snapshot) for
// `promtool check metrics` (promtool_check.sh).
#include <cstdio>

#include "metrics/sm_metrics.h"
#include "tests/metrics/sample.h"

int main() {
  const auto perf = metrics_test::two_ports();
  const auto figs = metrics_test::figures();
  const std::string page = metrics::render_page(&figs, &perf);
  return std::fwrite(page.data(), 1, page.size(), stdout) == page.size() ? 0 : 1;
}
