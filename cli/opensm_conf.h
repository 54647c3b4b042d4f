// Configuration files in both forms: fabricsm's `key = value` lines and OpenSM's opensm.conf
// `key value` lines (as `opensm --create-config` writes them), so that an operator's opensm.conf
// works as it is. In OpenSM's form, "(null)" is an empty value and a value equal to OpenSM's
// own default leaves fabricsm's default (OpenSM writes every key; only the ones changed are the
// operator's choice). OpenSM keys fabricsm does not implement are reported, not fatal.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"

namespace cli {

struct OpenSmKey {
  std::string_view name;
  std::string_view default_value;  // as opensm --create-config writes it
};
std::span<const OpenSmKey> opensm_keys();
const OpenSmKey* find_opensm_key(std::string_view name);

// Whether `value` is OpenSM's default for `key`: numbers compared as numbers (0x12 == 18),
// TRUE/FALSE without case, "(null)" as empty.
bool is_opensm_default(const OpenSmKey& key, std::string_view value);
// Whether `value` asks for nothing OpenSM would not do anyway: it is OpenSM's default, and that
// default does not act by itself (partition_config_file's and qos_policy_file's do: OpenSM reads
// the file at its default path when it is there).
bool asks_nothing(const OpenSmKey& key, std::string_view value);

// One setting of a configuration file.
struct ConfigLine {
  std::string key;
  std::string value;  // trimmed; "(null)" already made empty in OpenSM's form
  int line = 0;
  bool opensm_form = false;  // `key value`, not `key = value`
};

// Every setting of a file's text, in order: blank lines and '#' comments skipped (also after a
// value), a key given twice refused. Errors name the file and the line.
mad::Result<std::vector<ConfigLine>> parse_config_lines(std::string_view text, std::string_view path);

}  // namespace cli
