// The link-load distribution of one or more routing engines as an SVG picture: for each
// engine, the all-to-all routes on every directed switch-to-switch link, sorted from the
// busiest down (x: share of links, y: routes), one coloured curve per engine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cli {

struct LoadSeries {
  std::string label;
  std::vector<uint64_t> loads;
  std::string failure;  // not empty: the engine did not route; in the legend as such, not drawn
};

std::string svg_load_plot(const std::string& title, const std::vector<LoadSeries>& series);

}  // namespace cli
