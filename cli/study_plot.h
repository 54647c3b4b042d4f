// The study runner's picture: a figure (EBB, or the mean flow rate) against the fraction of
// links failed, one curve per series (engine, with the pattern and fabric when they vary), the
// mean over seeds with the spread as a bar.
#pragma once

#include <string>
#include <vector>

namespace cli {

struct StudyPoint {
  double x;  // failed fraction
  double mean, min, max;
};

struct StudySeries {
  std::string label;
  std::vector<StudyPoint> points;  // by x
};

std::string svg_study_plot(const std::string& title, const std::string& y_label, const std::vector<StudySeries>& series);

}  // namespace cli
