#include "install_record.hpp"

#include <algorithm>
#include <vector>

#include "core/errors.hpp"
#include "install_layout.hpp"

namespace wheelmod::wheel {

namespace {

constexpr std::string_view k_hint =
    "the wheel is corrupt or was altered after it was built; download it again";

[[noreturn]] void fail(const std::string& wheel, const std::string& cause) {
  throw IntegrityError(wheel, cause, std::string(k_hint));
}

}  // namespace

RecordDigests match_record(std::span<const pep::RecordEntry> record,
                           std::span<const ArchiveFile> files, std::string_view dist_info,
                           const std::string& wheel) {
  const std::string record_path = std::string(dist_info) + "/RECORD";
  const auto is_signature = [&](std::string_view path) {
    return path == record_path + ".jws" || path == record_path + ".p7s";
  };

  // Rows by normalised path, so `./x` in RECORD still names `x`.
  std::unordered_map<std::string, const pep::RecordEntry*> rows;
  for (const auto& row : record) {
    const auto checked = check_member_name(row.path);
    if (!checked) fail(wheel, "RECORD row '" + printable(row.path) + "': " + checked.error());
    if (checked->directory) continue;  // directories have no content to check
    if (!rows.emplace(checked->path, &row).second) {
      fail(wheel, "RECORD lists '" + printable(checked->path) + "' twice");
    }
  }

  RecordDigests digests;
  for (const auto& file : files) {
    if (file.path == record_path) continue;
    const auto found = rows.find(file.path);
    if (found == rows.end()) {
      if (is_signature(file.path)) {
        digests.emplace(file.path, std::nullopt);
        continue;
      }
      fail(wheel, "entry '" + printable(file.path) + "' is not listed in RECORD");
    }
    const auto& row = *found->second;
    const std::string entry = "entry '" + printable(file.path) + "'";
    if (!row.hash) fail(wheel, entry + ": RECORD gives no hash");
    if (row.hash->algorithm != "sha256") {
      throw IntegrityError(wheel,
                           entry + ": RECORD hash algorithm '" + row.hash->algorithm +
                               "' is unsupported (sha256 only)",
                           "rebuild the wheel with a current `wheel` or build backend");
    }
    hash::Sha256Digest digest{};
    if (row.hash->digest.size() != digest.size()) {
      fail(wheel, entry + ": RECORD's sha256 is " + std::to_string(row.hash->digest.size()) +
                      " bytes long, not 32");
    }
    std::ranges::copy(row.hash->digest, digest.begin());
    if (row.size && *row.size != file.size) {
      fail(wheel, entry + ": the central directory gives " + std::to_string(file.size) +
                      " bytes, RECORD " + std::to_string(*row.size));
    }
    digests.emplace(file.path, digest);
    rows.erase(found);
  }
  rows.erase(record_path);
  if (!rows.empty()) {
    // The alphabetically first, so the message does not depend on hashing.
    std::vector<std::string> missing;
    for (const auto& [path, row] : rows) missing.push_back(path);
    std::ranges::sort(missing);
    fail(wheel, "RECORD lists '" + printable(missing.front()) + "', which is not in the archive");
  }
  return digests;
}

}  // namespace wheelmod::wheel
