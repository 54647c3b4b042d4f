// A per-link figure's distribution for one or more routing engines as an SVG picture: for each
// engine, the figure on every directed link, sorted from the busiest down (x: share of links),
// one coloured curve per engine. The all-to-all routes on switch-to-switch links by default;
// with --traffic, each link's utilisation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cli {

struct LoadSeries {
  std::string label;
  std::vector<double> loads;
  std::string failure;  // not empty: the engine did not route; in the legend as such, not drawn
};

struct PlotAxes {
  std::string x = "directed switch-to-switch links, busiest first (share of all)";
  std::string y = "all-to-all routes on the link";
  int decimals = 0;  // of the tick labels and the legend's maxima
};

std::string svg_load_plot(const std::string& title, const std::vector<LoadSeries>& series, const PlotAxes& axes = {});

}  // namespace cli
