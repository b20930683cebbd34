// A test fixture over a history database in a fresh temporary folder, with
// raw SQLite access beside the store (for migrations and damage).
#pragma once

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/coordinator/store/history_store.h"
#include "daemon/coordinator/store/schema.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {

class HistoryDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "history_db_test.XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr) << templ;
    dir_ = templ;
    path_ = dir_ + "/history.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<HistoryStore> OpenStore() {
    absl::StatusOr<std::unique_ptr<HistoryStore>> store =
        HistoryStore::Open(path_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Runs `sql` on the file directly, outside the store.
  void RawExec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }

  // The single integer `sql` selects, read on the file directly.
  int64_t RawCount(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    int64_t count = -1;
    sqlite3_exec(
        db, sql.c_str(),
        [](void* out, int, char** values, char**) {
          *static_cast<int64_t*>(out) = std::stoll(values[0]);
          return 0;
        },
        &count, nullptr);
    sqlite3_close(db);
    return count;
  }

  int RawUserVersion() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    absl::StatusOr<int> version = ReadSchemaVersion(db);
    sqlite3_close(db);
    return version.ok() ? *version : -1;
  }

  std::string dir_;
  std::string path_;
};

}  // namespace fabricpulse::coordinator
