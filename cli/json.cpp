#include "cli/json.h"

#include <cmath>

namespace cli {

std::string json_text(const Json& j, bool indent) {
  return j.dump(indent ? 1 : -1, ' ', false, Json::error_handler_t::replace);
}

double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

Json rounded_or_null(const std::optional<double>& v, int decimals) {
  return v ? Json(rounded(*v, decimals)) : Json(nullptr);
}

}  // namespace cli
