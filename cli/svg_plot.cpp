#include "cli/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace cli {

namespace {

constexpr double kW = 800, kH = 500, kLeft = 80, kRight = 170, kTop = 50, kBottom = 60;
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A "nice" tick step: 1, 2 or 5 times a power of ten, about `n` ticks over [0, top].
double tick_step(double top, int n) {
  const double raw = std::max(top, 1.0) / n;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

}  // namespace

std::string svg_load_plot(const std::string& title, const std::vector<LoadSeries>& series, const PlotAxes& axes) {
  double top = axes.decimals > 0 ? 0 : 1;
  for (const auto& s : series)
    for (double l : s.loads) top = std::max(top, l);
  if (top <= 0) top = 1;
  top = std::round(top * 1e6) / 1e6;  // a utilisation of 1.0000000001 is 1, not a reason for another tick
  const double step = axes.decimals > 0 ? tick_step(top * 10, 5) / 10 : tick_step(top, 5);
  const double ymax = std::ceil(top / step) * step;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto px = [&](double frac) { return kLeft + frac * pw; };
  auto py = [&](double v) { return kTop + ph - v / ymax * ph; };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">{3}</text>\n",
      kW, kH, kLeft + pw / 2, escape(title));
  // Axes, grid and ticks.
  for (double v = 0; v <= ymax + step / 2; v += step) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>\n"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.{6}f}</text>\n",
                       kLeft, py(v), kLeft + pw, kLeft - 6, py(v) + 4, v, axes.decimals);
  }
  for (int i = 0; i <= 10; ++i) {
    const double fr = i / 10.0;
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#000\"/>\n"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}%</text>\n",
                       px(fr), kTop + ph, kTop + ph + 5, kTop + ph + 20, i * 10);
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#000\"/>\n"
                     "<line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"#000\"/>\n",
                     kLeft, kTop, kTop + ph, kLeft + pw);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLeft + pw / 2, kH - 15,
                     escape(axes.x));
  out += fmt::format("<text transform=\"translate(20 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     kTop + ph / 2, escape(axes.y));
  // One curve per engine, with its legend entry.
  for (size_t k = 0; k < series.size(); ++k) {
    const double ly = kTop + 20 + 22 * static_cast<double>(k);
    if (!series[k].failure.empty()) {
      out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#888\">{}: {}</text>\n", kLeft + pw + 15, ly + 4,
                         escape(series[k].label), escape(series[k].failure));
      continue;
    }
    std::vector<double> l = series[k].loads;
    std::sort(l.begin(), l.end(), std::greater<>());
    const char* colour = kColours[k % std::size(kColours)];
    std::string pts;
    const size_t n = l.size();
    const size_t stride = std::max<size_t>(1, n / 2000);  // keep the file small
    for (size_t i = 0; i < n; i += stride)
      pts += fmt::format("{:.1f},{:.1f} ", px(n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0),
                         py(l[i]));
    if (n) pts += fmt::format("{:.1f},{:.1f}", px(1.0), py(l.back()));
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", colour, pts);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"3\"/>\n"
                       "<text x=\"{4}\" y=\"{5}\">{6} (max {7:.{8}f})</text>\n",
                       kLeft + pw + 15, ly, kLeft + pw + 40, colour, kLeft + pw + 46, ly + 4,
                       escape(series[k].label), l.empty() ? 0.0 : l.front(), axes.decimals);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace cli
