#include "cli/study_plot.h"

#include <fmt/format.h>

#include <algorithm>

namespace cli {

namespace {

constexpr double kW = 800, kH = 500, kLeft = 80, kRight = 220, kTop = 50, kBottom = 60;
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"};

std::string xml(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : std::string(1, c);
  return out;
}

}  // namespace

std::string svg_study_plot(const std::string& title, const std::string& y_label, const std::vector<StudySeries>& series) {
  double xmax = 0;
  for (const auto& s : series)
    for (const auto& p : s.points) xmax = std::max(xmax, p.x);
  if (xmax <= 0) xmax = 0.01;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto X = [&](double x) { return kLeft + pw * x / xmax; };
  auto Y = [&](double y) { return kTop + ph * (1 - std::clamp(y, 0.0, 1.0)); };  // EBB and rates are 0..1
  std::string o = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
                              "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", kW, kH);
  o += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"15\">{}</text>\n", kLeft, xml(title));
  for (int i = 0; i <= 10; i += 2) {
    const double y = i / 10.0;
    o += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1f}\" "
                     "text-anchor=\"end\">{:.1f}</text>\n", kLeft, kLeft + pw, Y(y), Y(y), kLeft - 6, Y(y) + 4, y);
  }
  for (int i = 0; i <= 5; ++i) {
    const double x = xmax * i / 5;
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:.1f}%</text>\n", X(x), kTop + ph + 18, x * 100);
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">links failed</text>\n", kLeft + pw / 2, kH - 14);
  o += fmt::format("<text transform=\"translate(20,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n", kTop + ph / 2,
                   xml(y_label));
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", kLeft, kTop, pw, ph);
  for (size_t i = 0; i < series.size(); ++i) {
    const char* c = kPalette[i % std::size(kPalette)];
    std::string pts;
    for (const auto& p : series[i].points) {
      pts += fmt::format("{:.1f},{:.1f} ", X(p.x), Y(p.mean));
      o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>"
                       "<circle cx=\"{0:.1f}\" cy=\"{4:.1f}\" r=\"3\" fill=\"{3}\"/>\n",
                       X(p.x), Y(p.min), Y(p.max), c, Y(p.mean));
    }
    o += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", pts, c);
    const double ly = kTop + 14 + 18.0 * static_cast<double>(i);
    o += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/><text x=\"{}\" "
                     "y=\"{:.1f}\">{}</text>\n", kLeft + pw + 12, kLeft + pw + 36, ly, ly, c, kLeft + pw + 42, ly + 4,
                     xml(series[i].label));
  }
  return o + "</svg>\n";
}

}  // namespace cli
