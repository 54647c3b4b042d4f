// The Prometheus text exposition format 0.0.4 (what `GET /metrics` answers): one family at a
// time, its HELP and TYPE once, then its samples. Counter families get "_total" appended to
// their name, histogram families write _bucket{le=...} (cumulative, ending at +Inf), _sum and
// _count. Label values and HELP texts are escaped as the format says. A misuse (a family given
// twice, a bad name) writes nothing for it and is listed in problems(): a bad metric must not
// take the SM down, and tests check that the list is empty.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace metrics {

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

enum class Type : uint8_t { counter, gauge, histogram };

struct Label {
  std::string_view name;
  std::string_view value;
};
using Labels = std::span<const Label>;

// Bucket upper bounds (ascending, +Inf implied) and what fell in each.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);
  // Counted elsewhere (per bucket, not cumulative, bounds().size() + 1 of them): taken as they are.
  void assign(std::vector<uint64_t> counts, double sum);
  const std::vector<double>& bounds() const { return bounds_; }
  // Per bucket (not cumulative), bounds().size() + 1 of them: the last is above every bound.
  const std::vector<uint64_t>& counts() const { return counts_; }
  double sum() const { return sum_; }
  uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
  uint64_t count_ = 0;
};

// Seconds, from 1 ms to 60 s: what a sweep (or a counter sweep) takes, from a two-switch ibsim
// fabric to the largest subnet.
std::vector<double> duration_buckets();

class Writer {
 public:
  // Starts a family (ends the previous one). `name` without "_total" for a counter.
  void family(std::string_view name, Type type, std::string_view help);
  // One sample of the current counter or gauge family.
  void sample(Labels labels, double value);
  void sample(Labels labels, uint64_t value);
  void sample(std::initializer_list<Label> labels, double value) { sample(Labels(labels.begin(), labels.size()), value); }
  void sample(std::initializer_list<Label> labels, uint64_t value) { sample(Labels(labels.begin(), labels.size()), value); }
  // One series of the current histogram family.
  void histogram(Labels labels, const Histogram& h);
  void histogram(std::initializer_list<Label> labels, const Histogram& h) {
    histogram(Labels(labels.begin(), labels.size()), h);
  }

  // Many samples with the same labels (a port's, in every per-port family): escape them once.
  std::string render_labels(Labels labels);
  void sample_rendered(std::string_view rendered, double value);
  void sample_rendered(std::string_view rendered, uint64_t value);

  // Hands the text over in pieces of about `chunk` bytes as it grows (a page of 240k ports
  // is gigabytes); once the sink returns false (the client left) nothing more is written.
  void set_sink(std::function<bool(std::string_view)> sink, size_t chunk);
  bool stopped() const { return stopped_; }

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  bool usable(std::string_view what);
  void line(std::string_view suffix, std::string_view rendered, const Label* extra, std::string_view value);
  void flush_if_full();

  std::string out_;
  std::function<bool(std::string_view)> sink_;
  size_t chunk_ = 0;
  bool stopped_ = false;
  std::string name_;  // the current family's sample name ("" after a refused family)
  Type type_ = Type::gauge;
  std::set<std::string, std::less<>> families_;
  std::vector<std::string> problems_;
};

// The escapes of the format: label values \\ \" \n; HELP texts \\ \n.
std::string escape_label_value(std::string_view v);
std::string escape_help(std::string_view v);
// A sample value: integers exactly, NaN and +-Inf as the format spells them.
std::string format_value(double v);
bool valid_metric_name(std::string_view n);
bool valid_label_name(std::string_view n);

}  // namespace metrics
