// The operator's files and what they say, for every parser that reads one (configuration,
// partitions, root GUIDs, routing hints): read whole and bounded, regular files only (a
// directory or a FIFO named by mistake is refused, not read as empty), and quoted in error
// messages with non-printable bytes escaped and long values cut.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"

namespace mad {

inline constexpr size_t kMaxTextFile = size_t{16} << 20;

// `what` names the file in errors ("the partitions file").
Result<std::string> read_text_file(const std::string& path, std::string_view what, size_t max_bytes = kMaxTextFile);

// 'text' with \xNN for bytes that are not printable ASCII, cut after `max` bytes with the size.
std::string quoted(std::string_view text, size_t max = 64);

// A whole word as a number: 0x-prefixed hex, or decimal; nothing when it is not one or does not
// fit 64 bits.
std::optional<uint64_t> parse_number(std::string_view word);

// The words of a line, split at blanks (space, tab, CR).
std::vector<std::string_view> words(std::string_view line);

}  // namespace mad
