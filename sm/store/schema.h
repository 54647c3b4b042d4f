// The store's schema: forward migrations, one per version, applied in order inside one
// transaction. PRAGMA user_version holds the version, PRAGMA application_id marks the file
// as fabricsm's (so another program's database is refused, not "upgraded").
#pragma once

#include <string_view>
#include <vector>

#include "mad/error.h"
#include "sm/store/sqlite.h"

namespace sm::store {

inline constexpr int32_t kApplicationId = 0x4642534D;  // "FBSM"

// migrations()[i] takes a database from version i to version i + 1.
const std::vector<std::string_view>& migrations();
inline int current_version() { return static_cast<int>(migrations().size()); }

// Brings `db` (at version `from`) to `to` (default: current). Fails, changing nothing, when
// `from` is newer than this program knows.
mad::Result<void> migrate(Db& db, int from, int to = current_version());

}  // namespace sm::store
