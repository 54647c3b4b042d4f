#include "metrics/exposition.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mad/format.h"

namespace metrics {

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {
  std::sort(bounds_.begin(), bounds_.end());
}

void Histogram::observe(double v) {
  // le is "less than or equal": a value on a bound falls into that bound's bucket.
  const size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  ++counts_[i];
  sum_ += v;
  ++count_;
}

void Histogram::assign(std::vector<uint64_t> counts, double sum) {
  counts.resize(bounds_.size() + 1, 0);
  counts_ = std::move(counts);
  sum_ = sum;
  count_ = 0;
  for (uint64_t c : counts_) count_ += c;
}

std::vector<double> duration_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string escape_help(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Whole numbers without an exponent up to 2^53 (what a double holds exactly); else the
  // shortest form that reads back the same (Go's ParseFloat takes "1e+20").
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

namespace {
bool name_char(char c, bool first, bool colon) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}
bool valid_name(std::string_view n, bool colon) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i)
    if (!name_char(n[i], i == 0, colon)) return false;
  return true;
}
}  // namespace

bool valid_metric_name(std::string_view n) { return valid_name(n, true); }
bool valid_label_name(std::string_view n) { return valid_name(n, false) && !n.starts_with("__"); }

void Writer::family(std::string_view name, Type type, std::string_view help) {
  name_.clear();
  if (stopped_) return;
  std::string full(name);
  if (type == Type::counter && !full.ends_with("_total")) full += "_total";
  if (!valid_metric_name(full)) {
    problems_.push_back(fmt::format("bad metric name '{}'", full));
    return;
  }
  if (!families_.insert(full).second) {
    problems_.push_back(fmt::format("family {} written twice", full));
    return;
  }
  const char* type_name = type == Type::counter ? "counter" : type == Type::gauge ? "gauge" : "histogram";
  mad::append_format(out_, "# HELP {} {}\n# TYPE {} {}\n", full, escape_help(help), full, type_name);
  name_ = std::move(full);
  type_ = type;
}

bool Writer::usable(std::string_view what) {
  if (name_.empty()) return false;  // the family was refused (listed in problems)
  if ((what == "histogram") != (type_ == Type::histogram)) {
    problems_.push_back(fmt::format("{}: a {} sample in the wrong kind of family", name_, what));
    return false;
  }
  return true;
}

std::string Writer::render_labels(Labels labels) {
  std::string out;
  for (const Label& l : labels) {
    if (!valid_label_name(l.name)) {
      problems_.push_back(fmt::format("{}: bad label name '{}'", name_, l.name));
      continue;
    }
    if (!out.empty()) out += ',';
    mad::append_format(out, "{}=\"{}\"", l.name, escape_label_value(l.value));
  }
  return out;
}

void Writer::line(std::string_view suffix, std::string_view rendered, const Label* extra, std::string_view value) {
  if (stopped_) return;
  out_ += name_;
  out_ += suffix;
  if (!rendered.empty() || extra) {
    out_ += '{';
    out_ += rendered;
    if (extra) {  // le: a fixed name, a value that needs no escape
      if (!rendered.empty()) out_ += ',';
      mad::append_format(out_, "{}=\"{}\"", extra->name, extra->value);
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
  flush_if_full();
}

void Writer::set_sink(std::function<bool(std::string_view)> sink, size_t chunk) {
  sink_ = std::move(sink);
  chunk_ = chunk;
}

void Writer::flush_if_full() {
  if (!sink_ || out_.size() < chunk_) return;
  if (!sink_(out_)) stopped_ = true;
  out_.clear();
}

void Writer::sample(Labels labels, double value) {
  if (usable("sample")) line("", render_labels(labels), nullptr, format_value(value));
}

void Writer::sample(Labels labels, uint64_t value) {
  if (usable("sample")) line("", render_labels(labels), nullptr, fmt::format("{}", value));
}

void Writer::sample_rendered(std::string_view rendered, double value) {
  if (usable("sample")) line("", rendered, nullptr, format_value(value));
}

void Writer::sample_rendered(std::string_view rendered, uint64_t value) {
  if (usable("sample")) line("", rendered, nullptr, fmt::format("{}", value));
}

void Writer::histogram(Labels labels, const Histogram& h) {
  if (!usable("histogram")) return;
  const std::string rendered = render_labels(labels);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= h.bounds().size(); ++i) {
    cumulative += h.counts()[i];
    const std::string le = i < h.bounds().size() ? format_value(h.bounds()[i]) : "+Inf";
    const Label extra{"le", le};
    line("_bucket", rendered, &extra, fmt::format("{}", cumulative));
  }
  line("_sum", rendered, nullptr, format_value(h.sum()));
  line("_count", rendered, nullptr, fmt::format("{}", h.count()));
}

}  // namespace metrics
