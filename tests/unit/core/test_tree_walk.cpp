// walk_tree lists what std::filesystem::recursive_directory_iterator lists, spelt the same way.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "core/files.hpp"
#include "core/tree_walk.hpp"

namespace fs = std::filesystem;
using wheelmod::TreeEntry;
using wheelmod::TreeEntryType;
using wheelmod::walk_tree;

namespace {

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "x";
}

// A tree of every entry type that relink and check meet: files at several depths, an empty
// directory, a symlink to a file and one to a directory (not entered), a dangling symlink.
fs::path sample_tree(const fs::path& root) {
  touch(root / "top.txt");
  touch(root / "a" / "one.so");
  touch(root / "a" / "b" / "two.so");
  touch(root / "a" / "b" / "c" / "three.py");
  fs::create_directories(root / "empty");
  fs::create_symlink("top.txt", root / "link-to-file");
  fs::create_symlink("a", root / "link-to-dir");
  fs::create_symlink("nowhere", root / "dangling");
  return root;
}

std::set<std::pair<std::string, TreeEntryType>> walked(const fs::path& root) {
  std::set<std::pair<std::string, TreeEntryType>> out;
  const auto error = walk_tree(root, [&](const TreeEntry& entry) {
    // The descriptor is the entry's directory: the entry can be reached through it.
    struct stat status {};
    CHECK(::fstatat(entry.directory_fd, std::string(entry.name).c_str(), &status,
                    AT_SYMLINK_NOFOLLOW) == 0);
    out.emplace(entry.path(), entry.type);
  });
  CHECK_FALSE(error);
  return out;
}

std::set<std::pair<std::string, TreeEntryType>> iterated(const fs::path& root) {
  std::set<std::pair<std::string, TreeEntryType>> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const auto status = entry.symlink_status();
    const auto type = fs::is_symlink(status)        ? TreeEntryType::symlink
                      : fs::is_directory(status)    ? TreeEntryType::directory
                      : fs::is_regular_file(status) ? TreeEntryType::regular
                                                    : TreeEntryType::other;
    out.emplace(entry.path().string(), type);
  }
  return out;
}

}  // namespace

TEST_CASE("walk_tree lists the entries and types recursive_directory_iterator lists",
          "[core][tree_walk]") {
  const wheelmod::TemporaryDirectory tmp(fs::temp_directory_path(), "wheelmod-walk-");
  const auto root = sample_tree(tmp.path() / "tree");
  // Spelt as given: with and without a trailing slash, relative too.
  for (const auto& given : {root, fs::path(root.string() + "/")}) {
    CAPTURE(given);
    CHECK(walked(given) == iterated(given));
  }
  const auto cwd = fs::current_path();
  fs::current_path(tmp.path());
  CHECK(walked("tree") == iterated("tree"));
  fs::current_path(cwd);
  CHECK(walked(root).contains(
      {(root / "a" / "b" / "c" / "three.py").string(), TreeEntryType::regular}));
  // The symlink to a directory is listed, not entered.
  CHECK(std::ranges::none_of(walked(root), [&](const auto& entry) {
    return entry.first.starts_with((root / "link-to-dir").string() + "/");
  }));
}

TEST_CASE("walk_tree reports what stops it", "[core][tree_walk]") {
  const wheelmod::TemporaryDirectory tmp(fs::temp_directory_path(), "wheelmod-walk-");
  const auto nothing = [](const TreeEntry&) {};
  CHECK(walk_tree(tmp.path() / "missing", nothing) == std::errc::no_such_file_or_directory);
  touch(tmp.path() / "file");
  CHECK(walk_tree(tmp.path() / "file", nothing) == std::errc::not_a_directory);

  if (::geteuid() == 0) return;  // root opens any directory: no EACCES to see
  const auto root = sample_tree(tmp.path() / "tree");
  fs::permissions(root / "a" / "b", fs::perms::none);
  std::vector<std::string> seen;
  const auto collect = [&](const TreeEntry& entry) { seen.push_back(entry.path()); };
  CHECK(walk_tree(root, collect) == std::errc::permission_denied);
  seen.clear();
  CHECK_FALSE(walk_tree(root, collect, {.skip_permission_denied = true}));
  CHECK(std::ranges::find(seen, (root / "a" / "one.so").string()) != seen.end());
  CHECK(std::ranges::find(seen, (root / "a" / "b" / "two.so").string()) == seen.end());
  fs::permissions(root / "a" / "b", fs::perms::owner_all);
}
