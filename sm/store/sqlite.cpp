#include "sm/store/sqlite.h"

#include <fmt/format.h>

namespace sm::store {

mad::Result<bool> Stmt::step() {
  const int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return mad::fail(mad::Errc::io, fmt::format("sqlite: {}", sqlite3_errmsg(db_)));
}

mad::Result<void> Stmt::run() {
  auto r = step();
  reset();
  if (!r) return std::unexpected(r.error());
  return {};
}

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(s_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(s_, col)))
           : std::string();
}

std::span<const uint8_t> Stmt::blob(int col) const {
  const void* p = sqlite3_column_blob(s_, col);
  return {static_cast<const uint8_t*>(p), static_cast<size_t>(sqlite3_column_bytes(s_, col))};
}

mad::Result<Db> Db::open(const std::string& path, Mode mode) {
  const int flags = mode == Mode::read_only ? SQLITE_OPEN_READONLY
                    : mode == Mode::read_write ? SQLITE_OPEN_READWRITE
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return mad::fail(mad::Errc::io, fmt::format("{}: {}", path, msg));
  }
  sqlite3_busy_timeout(db, 5000);  // `fabricsm show` reads while the daemon writes
  sqlite3_extended_result_codes(db, 1);
  return Db(db);
}

mad::Result<void> Db::exec(std::string_view sql) {
  char* err = nullptr;
  const std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return mad::fail(mad::Errc::io, fmt::format("sqlite: {}", msg));
  }
  return {};
}

mad::Result<Stmt> Db::prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s,
                         nullptr) != SQLITE_OK)
    return mad::fail(mad::Errc::io, fmt::format("sqlite: {} in: {}", sqlite3_errmsg(db_), sql));
  return Stmt(s, db_);
}

mad::Result<int64_t> Db::scalar(std::string_view sql) {
  auto st = prepare(sql);
  if (!st) return std::unexpected(st.error());
  auto row = st->step();
  if (!row) return std::unexpected(row.error());
  return *row ? st->i64(0) : 0;
}

mad::Result<Transaction> Transaction::begin(Db& db) {
  if (auto r = db.exec("BEGIN IMMEDIATE"); !r) return std::unexpected(r.error());
  return Transaction(db);
}

mad::Result<void> Transaction::commit() {
  auto r = db_->exec("COMMIT");
  if (r) db_ = nullptr;
  return r;
}

}  // namespace sm::store
