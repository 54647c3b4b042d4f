// A thin RAII layer over the SQLite C API: a connection, prepared statements, errors as
// values. Nothing here knows fabricsm's schema (schema.cpp and store.cpp do).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "mad/error.h"

namespace sm::store {

class Stmt {
 public:
  Stmt() = default;
  Stmt(Stmt&& o) noexcept : s_(std::exchange(o.s_, nullptr)), db_(o.db_) {}
  Stmt& operator=(Stmt&& o) noexcept {
    std::swap(s_, o.s_);
    db_ = o.db_;
    return *this;
  }
  ~Stmt() { sqlite3_finalize(s_); }

  // Binds by 1-based position. Chainable; errors surface at step().
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, uint64_t v) { return bind(i, static_cast<int64_t>(v)); }  // GUIDs: bit pattern
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, unsigned v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind_blob(int i, std::span<const uint8_t> v) {
    sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // true: a row is ready; false: done. Errors as values.
  mad::Result<bool> step();
  // step() for statements that return no rows, then reset for the next use.
  mad::Result<void> run();
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  int64_t i64(int col) const { return sqlite3_column_int64(s_, col); }
  uint64_t u64(int col) const { return static_cast<uint64_t>(sqlite3_column_int64(s_, col)); }
  double f64(int col) const { return sqlite3_column_double(s_, col); }
  bool is_null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  std::string text(int col) const;
  std::span<const uint8_t> blob(int col) const;

 private:
  friend class Db;
  Stmt(sqlite3_stmt* s, sqlite3* db) : s_(s), db_(db) {}
  sqlite3_stmt* s_ = nullptr;
  sqlite3* db_ = nullptr;
};

class Db {
 public:
  enum class Mode { read_write_create, read_write, read_only };
  static mad::Result<Db> open(const std::string& path, Mode mode);
  Db() = default;
  Db(Db&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}
  Db& operator=(Db&& o) noexcept {
    std::swap(db_, o.db_);
    return *this;
  }
  ~Db() { sqlite3_close_v2(db_); }

  mad::Result<void> exec(std::string_view sql);
  mad::Result<Stmt> prepare(std::string_view sql);
  // Runs a query that returns one integer (0 when no row).
  mad::Result<int64_t> scalar(std::string_view sql);
  std::string error() const { return db_ ? sqlite3_errmsg(db_) : "not open"; }
  sqlite3* raw() { return db_; }

 private:
  explicit Db(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back on destruction unless committed.
class Transaction {
 public:
  static mad::Result<Transaction> begin(Db& db);
  Transaction(Transaction&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}
  ~Transaction() {
    if (db_) (void)db_->exec("ROLLBACK");
  }
  mad::Result<void> commit();

 private:
  explicit Transaction(Db& db) : db_(&db) {}
  Db* db_;
};

}  // namespace sm::store
