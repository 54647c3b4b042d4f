// Appending formatted text to a string or an fmt::memory_buffer. fmt::format_to on an iterator
// instantiates all of fmt's formatting code (floats included) in the file that calls it, about
// 7 s of compile time per file; fmt::vformat is compiled once, in libfmt.
#pragma once

#include <string>

#include <fmt/core.h>

namespace mad {

template <class Out, class... A>
void append_format(Out& out, fmt::format_string<A...> format, A&&... args) {
  const std::string text = fmt::vformat(format, fmt::make_format_args(args...));
  out.append(text.data(), text.data() + text.size());
}

}  // namespace mad
